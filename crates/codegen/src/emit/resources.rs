//! Global variables: resources with their descriptor bindings as dxc assigns them,
//! buffer blocks (`cbuffer`, `$Globals`, structured and byte-address buffers),
//! `static` and `groupshared` variables; and the object methods of textures and
//! buffers.

use super::expr::{Place, Val};
use super::{Emitter, Global, R};
use crate::builder::{i32_attr, prop};
use crate::layout::{BufferKind, LayoutRule, Placement};
use spirvkit_hlsl::ast::{Annotation, DeclId, DeclKind, ExprId, ExprKind, Modifiers};
use spirvkit_hlsl::sema::tree::{CallInfo, ConstValue, GlobalStorage, Stage};
use spirvkit_hlsl::sema::types::{Family, ObjectArg, ObjectKind, Scalar, Ty, TypeData, TypeTable};
use spirvkit_ir::attr::{Attribute, NamedAttribute};
use spirvkit_ir::ir::{OpId, Value};
use spirvkit_ir::types::{StructBody, StructMember, Type, TypeKind};
use std::collections::{HashMap, HashSet};

/// How descriptor bindings are assigned (dxc's binding options).
#[derive(Clone, Debug, Default)]
pub struct BindingOptions {
    /// `-fvk-{b,t,s,u}-shift`: register letter, shift, space (`None`: every space).
    pub shifts: Vec<(char, u32, Option<u32>)>,
    /// `-fvk-bind-register`: register (`t5`), space, binding, set.
    pub registers: Vec<(String, u32, u32, u32)>,
    /// `-auto-binding-space`.
    pub auto_space: Option<u32>,
    /// `-fvk-bind-globals BINDING SET`.
    pub globals: Option<(u32, u32)>,
    /// `-fspv-flatten-resource-arrays`: an array of resources takes one binding per
    /// element.
    pub flatten_arrays: bool,
    /// `-fvk-auto-shift-bindings`: implicit bindings start at their register's shift.
    pub auto_shift: bool,
    /// `-fvk-bind-{resource,sampler,counter}-heap BINDING SET`.
    pub resource_heap: Option<(u32, u32)>,
    pub sampler_heap: Option<(u32, u32)>,
    pub counter_heap: Option<(u32, u32)>,
}

#[derive(Default)]
pub(crate) struct ResourceState {
    /// Values decorated `NonUniform`: `NonUniformResourceIndex`'s copies of their
    /// index and what dxc propagates the decoration to (see [`propagates_non_uniform`]).
    pub non_uniform: HashSet<Value>,
    /// Built-in variables by `class:builtin`.
    pub builtins: HashMap<String, String>,
    /// `static` globals with initializers, initialized by the wrapper.
    /// `static` globals and their initializers (none: zero-initialized).
    pub static_inits: Vec<(DeclId, Option<ExprId>)>,
    /// The pointee of each resource type's variables.
    pub pointees: HashMap<Ty, (Type, &'static str, Option<LayoutRule>)>,
    /// Capabilities and extensions beyond the instructions' own requirements.
    pub capabilities: Vec<String>,
    pub extensions: Vec<String>,
    /// `SparseResidencyStruct`s by texel type.
    pub sparse_structs: HashMap<Type, Type>,
    /// A resource was decorated `UserTypeGOOGLE` (the module declares
    /// SPV_GOOGLE_user_type after the extensions of everything else).
    pub(crate) user_types: bool,
    /// The counter variable of each RW/Append/Consume structured buffer that has one.
    pub counters: HashMap<DeclId, (String, Type)>,
    /// `type.ACSBuffer.counter`.
    pub counter_type: Option<Type>,
    /// Specialization constants: symbol and type.
    pub spec_constants: HashMap<DeclId, (String, Type)>,
    /// The spec constant composites made, by type and constituents.
    pub spec_composites: Vec<((Type, Vec<Attribute>), String)>,
    /// The compute shader's derivative group mode has been added.
    pub derivative_group_set: bool,
    /// The (set, binding) pairs the declared resources took.
    pub used_bindings: HashSet<(u32, u32)>,
    /// The runtime arrays the descriptor heaps are made of, one per heap and element
    /// type: (heap, element type, symbol, variable op).
    pub heap_variables: Vec<(Heap, Type, String, spirvkit_ir::OpId)>,
    /// The index into the resource heap of each local buffer taken from it, for its
    /// counter.
    pub heap_counter_index: HashMap<DeclId, Value>,
    /// The index of the last element taken from a heap.
    pub last_heap_index: Option<Value>,
}

/// SM 6.6's descriptor heaps, as SPIR-V.rst maps them: one binding per heap (every
/// element type a runtime array at that binding), and one for the counters of the
/// buffers taken from the resource heap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Heap {
    Resource,
    Sampler,
    Counter,
}

impl Heap {
    fn name(self) -> &'static str {
        match self {
            Heap::Resource => "ResourceDescriptorHeap",
            Heap::Sampler => "SamplerDescriptorHeap",
            Heap::Counter => "counter.var.ResourceDescriptorHeap",
        }
    }
}

/// How a resource's declaration places it (dxc's cases, decorated in dxc's passes:
/// `[[vk::binding]]` and `[[vk::counter_binding]]` first, then `register(xN)`, then
/// the rest in the first free numbers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BindingSource {
    /// `[[vk::binding(b, s)]]`, or `-fvk-bind-register`'s mapping: (set, binding).
    Attribute(u32, u32),
    /// `register(xN[, spaceM])` with its shift: (set, binding).
    Register(u32, u32),
    /// `register(spaceM)`: the first free binding of set M.
    SpaceOnly(u32),
    /// Nothing: the first free binding of the default set (or `-fvk-bind-globals`'s
    /// for `$Globals`).
    Implicit,
    /// A counter: `[[vk::counter_binding(b)]]` if given, in its buffer's set.
    Counter { set: u32, binding: Option<u32> },
}

/// A resource waiting for a binding.
struct Pending {
    op: spirvkit_ir::OpId,
    symbol: String,
    source: BindingSource,
    /// The binding numbers it occupies (an array's element count with
    /// `-fspv-flatten-resource-arrays`, else 1).
    count: u32,
    /// The register letter of the resource's kind, for `-fvk-auto-shift-bindings`.
    register: char,
    /// `$Globals`, which `-fvk-bind-globals` places.
    globals: bool,
}

impl<'t> Emitter<'t> {
    pub(super) fn resources_declare(&mut self, decls: &[DeclId]) -> R<()> {
        let mut pending: Vec<Pending> = Vec::new();
        // dxc makes `$Globals` where its first member is declared (its place among
        // the resources decides its binding), with every member.
        let globals_members: Vec<DeclId> = decls
            .iter()
            .copied()
            .filter(|&d| {
                matches!(self.ast.decl(d).kind, DeclKind::Var(_))
                    && self.global_storage(d) == Some(GlobalStorage::Globals)
            })
            .collect();
        let mut globals_declared = false;
        let counter_users = self.counter_users();
        if !self.options.bindings.registers.is_empty() {
            let with_counter: HashSet<DeclId> = decls
                .iter()
                .copied()
                .filter(|&d| {
                    let ty = self.tree.decl(d).map_or(TypeTable::ERROR, |i| i.ty);
                    self.global_storage(d) == Some(GlobalStorage::Resource)
                        && self.needs_counter(d, ty, &counter_users)
                })
                .collect();
            self.check_bind_register(decls, &with_counter)?;
        }
        for &d in decls {
            self.span = Some(self.ast.decl(d).span);
            match self.ast.decl(d).kind.clone() {
                DeclKind::Buffer { kind, name, annotations, decls } => {
                    let buffer_kind = match kind {
                        spirvkit_hlsl::ast::BufferKind::CBuffer => BufferKind::ConstantBuffer,
                        spirvkit_hlsl::ast::BufferKind::TBuffer => BufferKind::TextureBuffer,
                    };
                    let mut members: Vec<DeclId> = Vec::new();
                    for &m in &decls {
                        let DeclKind::Var(v) = &self.ast.decl(m).kind else { continue };
                        let ty = self.tree.decl(m).map_or(TypeTable::ERROR, |i| i.ty);
                        if !self.is_resource_type(ty) {
                            members.push(m);
                            continue;
                        }
                        // dxc takes a resource out of its buffer: a global of its own,
                        // declared (and bound) before the buffer, with its own register.
                        let annotations = v.annotations.clone();
                        let member_name = v.name.map_or_else(String::new, |n| self.name(n.name).to_string());
                        self.declare_resource(
                            m,
                            ty,
                            &member_name,
                            &annotations,
                            &counter_users,
                            &mut pending,
                        )?;
                    }
                    if members.is_empty() {
                        // Empty or only resources: no block is left (dxc makes no
                        // variable for it since its fix of empty cbuffers, which had
                        // no binding and were invalid without optimization).
                        continue;
                    }
                    let block_name = self.name(name.name).to_string();
                    self.check_buffer_member_initializers(kind, &members);
                    self.check_buffer_matrices(&members)?;
                    let source = self.binding_source(d, &annotations);
                    let register = if buffer_kind == BufferKind::TextureBuffer { 't' } else { 'b' };
                    let symbol =
                        self.block(d, &block_name, &format!("type.{block_name}"), &members, buffer_kind)?;
                    if let (true, Some(op)) = (self.options.reflect, self.symbol_op(&symbol)) {
                        let user_type = match kind {
                            spirvkit_hlsl::ast::BufferKind::CBuffer => "cbuffer",
                            spirvkit_hlsl::ast::BufferKind::TBuffer => "tbuffer",
                        };
                        self.reflect_user_type(op, user_type.to_string());
                    }
                    if let Some(op) = self.symbol_op(&symbol) {
                        pending.push(Pending { op, symbol, source, count: 1, register, globals: false });
                    }
                }
                DeclKind::Var(v) => {
                    let storage = self.global_storage(d);
                    let ty = self.tree.decl(d).map_or(TypeTable::ERROR, |i| i.ty);
                    let name = v.name.map_or_else(String::new, |n| self.name(n.name).to_string());
                    match storage {
                        Some(GlobalStorage::Static) => {
                            if let Some((class, builtin)) = self.ext_builtin(d)? {
                                // Inline SPIR-V's built-in: the built-in's stage variable
                                // itself, named as dxc names built-in variables.
                                let t = self.value_type_of(ty)?;
                                let ptr = self.pointer(t, class);
                                let symbol = self.unique_symbol(&super::entry::builtin_var_name(builtin));
                                if !super::entry::builtin_is_named(builtin) {
                                    self.unnamed_symbols.push(symbol.clone());
                                }
                                let mut decorations =
                                    vec![prop("built_in", Attribute::String(builtin.to_string()))];
                                // Vulkan: integer fragment inputs are Flat, built-ins too.
                                let fragment =
                                    self.tree.entry_points.first().is_some_and(|e| e.stage == Stage::Pixel);
                                if fragment
                                    && class == "Input"
                                    && self.lower.store().is_integer(t)
                                    && t != self.bool_type()
                                {
                                    decorations.push(prop("flat", Attribute::Unit));
                                }
                                decorations.extend(self.ext_decorations(d)?);
                                self.global_variable(&symbol, ptr, decorations);
                                // Known as the built-in's variable (its capabilities, its reuse).
                                self.resources.builtins.insert(format!("{class}:{builtin}"), symbol.clone());
                                self.globals.insert(
                                    d,
                                    Global { symbol, ptr_type: ptr, ty, rule: None, member_of: None },
                                );
                                continue;
                            }
                            if self.tree.decl(d).and_then(|i| i.constant).is_some()
                                && self.scalar_shape(ty).is_some()
                            {
                                continue;
                            }
                            let t = self.value_type_of(ty)?;
                            let ptr = self.pointer(t, "Private");
                            let symbol = self.unique_symbol(&name);
                            let decorations = self.ext_decorations(d)?;
                            self.global_variable(&symbol, ptr, decorations);
                            if self.declared_precise(d) {
                                self.precise.globals.insert(symbol.clone());
                            }
                            self.globals
                                .insert(d, Global { symbol, ptr_type: ptr, ty, rule: None, member_of: None });
                            // Without an initializer dxc stores the zero value (which
                            // opaque handles have none of).
                            if v.init.is_some() || !self.table.contains_object(ty) {
                                self.resources.static_inits.push((d, v.init));
                            }
                        }
                        Some(GlobalStorage::GroupShared) => {
                            let t = self.ty(ty)?;
                            let class =
                                if self.is_task_payload(d) { "TaskPayloadWorkgroupEXT" } else { "Workgroup" };
                            let ptr = self.pointer(t, class);
                            let symbol = self.unique_symbol(&name);
                            let decorations = self.ext_decorations(d)?;
                            self.global_variable(&symbol, ptr, decorations);
                            self.globals
                                .insert(d, Global { symbol, ptr_type: ptr, ty, rule: None, member_of: None });
                        }
                        Some(GlobalStorage::Globals) if !globals_declared => {
                            globals_declared = true;
                            self.declare_globals_block(&globals_members, &mut pending)?;
                        }
                        Some(GlobalStorage::Globals) => {}
                        Some(GlobalStorage::Buffer(_)) => {}
                        Some(GlobalStorage::Resource) => {
                            if self.is_subpass_input(ty)
                                && self.tree.entry_points.first().is_some_and(|e| e.stage != Stage::Pixel)
                            {
                                // dxc declares subpass inputs in pixel shaders only (sema
                                // rejects their uses elsewhere).
                                continue;
                            }
                            self.declare_resource(
                                d,
                                ty,
                                &name,
                                &v.annotations,
                                &counter_users,
                                &mut pending,
                            )?;
                        }
                        Some(GlobalStorage::PushConstant) => {
                            let t = match self.data(ty).clone() {
                                TypeData::Object { args, .. } => match args.first() {
                                    Some(ObjectArg::Type(inner)) => *inner,
                                    _ => ty,
                                },
                                _ => ty,
                            };
                            let rule = LayoutRule::for_buffer(BufferKind::PushConstant, self.options.layout);
                            let lowered = self.ty_in(t, Some(rule))?;
                            // dxc names the block by how it was declared.
                            let prefix = match self.data(ty) {
                                TypeData::Object { kind, .. } if kind.family() == Family::ConstantBuffer => {
                                    "ConstantBuffer"
                                }
                                _ => "PushConstant",
                            };
                            let block = self.wrap_block_type(
                                lowered,
                                &format!("type.{prefix}.{}", self.type_name(t)),
                                "Block",
                                false,
                            )?;
                            let ptr = self.pointer(block, "PushConstant");
                            let symbol = self.unique_symbol(&name);
                            self.global_variable(&symbol, ptr, Vec::new());
                            self.globals.insert(
                                d,
                                Global { symbol, ptr_type: ptr, ty: t, rule: Some(rule), member_of: None },
                            );
                            self.resources_push_constant_wrapper(d);
                        }
                        Some(GlobalStorage::SpecConstant) => self.spec_constant(d, ty, &name)?,
                        None => {}
                    }
                }
                _ => {}
            }
        }
        self.assign_bindings(pending);
        self.span = None;
        Ok(())
    }

    /// A resource object or an array of them (what a buffer cannot hold).
    fn is_resource_type(&self, ty: Ty) -> bool {
        let mut t = ty;
        while let TypeData::Array { elem, .. } = self.data(t) {
            t = *elem;
        }
        matches!(self.data(t), TypeData::Object { .. })
    }

    /// A `SubpassInput[MS]` or an array of them.
    fn is_subpass_input(&self, ty: Ty) -> bool {
        let mut t = ty;
        while let TypeData::Array { elem, .. } = self.data(t) {
            t = *elem;
        }
        matches!(self.data(t), TypeData::Object { kind, .. } if kind.family() == Family::SubpassInput)
    }

    /// A resource global and its counter (dxc declares the counter just before its
    /// buffer), waiting for their bindings in `pending`.
    fn declare_resource(
        &mut self,
        d: DeclId,
        ty: Ty,
        name: &str,
        annotations: &[Annotation],
        counter_users: &HashSet<DeclId>,
        pending: &mut Vec<Pending>,
    ) -> R<()> {
        let (symbol, register) = self.resource_global(d, ty, name)?;
        let source = self.binding_source(d, annotations);
        let count = self.bindings_used(ty);
        let buffer_op = self.symbol_op(&symbol);
        if let (true, Some(op)) = (self.options.reflect, buffer_op) {
            let user_type = self.user_type_name(d, ty);
            self.reflect_user_type(op, user_type);
        }
        if let Some(op) = buffer_op {
            pending.push(Pending { op, symbol, source, count, register, globals: false });
        }
        if !self.needs_counter(d, ty, counter_users) {
            return Ok(());
        }
        let counter = self.counter_global(d, ty, name)?;
        let set = match source {
            BindingSource::Attribute(set, _) if !self.binds_registers() => set,
            BindingSource::Register(set, _) | BindingSource::SpaceOnly(set) => set,
            _ => self.register_space(annotations).unwrap_or(self.default_space()),
        };
        let binding = self
            .int_attribute_args(d, "counter_binding")
            .and_then(|a| a.first().copied())
            .and_then(|b| u32::try_from(b).ok());
        if let Some(op) = self.symbol_op(&counter) {
            if let Some(before) = buffer_op {
                self.ir.erase_op(op);
                self.ir.insert_op_before(self.module_block, before, op);
                if self.options.reflect {
                    // SPIR-V.rst: `-fspv-reflect` ties a buffer to its counter.
                    self.require_extension("SPV_GOOGLE_hlsl_functionality1");
                    self.ir.op_mut(before).attributes.push(NamedAttribute::new(
                        "counter_buffer",
                        Attribute::SymbolRef(vec![counter.clone()]),
                    ));
                }
            }
            pending.push(Pending {
                op,
                symbol: counter,
                source: BindingSource::Counter { set, binding },
                count: 1,
                register: 'u',
                globals: false,
            });
        }
        Ok(())
    }

    /// The `$Globals` block of `members`, waiting for its binding in `pending`.
    fn declare_globals_block(&mut self, members: &[DeclId], pending: &mut Vec<Pending>) -> R<()> {
        self.check_globals_members(members);
        let symbol =
            self.block(DeclId(u32::MAX), "$Globals", "type.$Globals", members, BufferKind::ConstantBuffer)?;
        if let Some(op) = self.symbol_op(&symbol) {
            pending.push(Pending {
                op,
                symbol,
                source: BindingSource::Implicit,
                count: 1,
                register: 'b',
                globals: true,
            });
        }
        Ok(())
    }

    /// The declarations whose `IncrementCounter`/`DecrementCounter` is called (a
    /// `RWStructuredBuffer` has a counter only then).
    fn counter_users(&self) -> HashSet<DeclId> {
        let mut users = HashSet::new();
        for expr in &self.ast.exprs {
            let ExprKind::Member { base, member, .. } = &expr.kind else { continue };
            if !matches!(self.name(member.name), "IncrementCounter" | "DecrementCounter") {
                continue;
            }
            let mut b = *base;
            // Through indexing of an array of buffers.
            while let ExprKind::Index { base, .. } = &self.ast.expr(b).kind {
                b = *base;
            }
            if let Some(spirvkit_hlsl::sema::tree::Resolution::Decl(d)) =
                self.tree.expr(b).map(|i| i.resolution.clone())
            {
                users.insert(d);
            }
        }
        users
    }

    fn needs_counter(&self, d: DeclId, ty: Ty, users: &HashSet<DeclId>) -> bool {
        let base = match self.data(ty) {
            TypeData::Array { elem, .. } => *elem,
            _ => ty,
        };
        match self.data(base) {
            TypeData::Object { kind, .. } => match kind.family() {
                Family::AppendBuffer | Family::ConsumeBuffer => true,
                Family::RWStructuredBuffer => users.contains(&d),
                _ => false,
            },
            _ => false,
        }
    }

    /// The counter of a RW/Append/Consume structured buffer: `counter.var.NAME`, a
    /// block of one `int` (`type.ACSBuffer.counter`); an array of them for an array of
    /// buffers.
    fn counter_global(&mut self, d: DeclId, ty: Ty, name: &str) -> R<String> {
        let block = self.counter_block_type();
        let var_ty = match self.data(ty) {
            TypeData::Array { len: Some(n), .. } => self.store().array(block, *n, None),
            TypeData::Array { len: None, .. } => {
                self.store().intern(TypeKind::RuntimeArray { element: block, stride: None, stride_id: None })
            }
            _ => block,
        };
        let (class, _) = self.storage_buffer_class();
        let ptr = self.pointer(var_ty, class);
        let symbol = self.unique_symbol(&format!("counter.var.{name}"));
        self.global_variable(&symbol, ptr, Vec::new());
        self.resources.counters.insert(d, (symbol.clone(), ptr));
        Ok(symbol)
    }

    /// SPIR-V.rst's HLSL user types: the resource's type name in lower case, then its
    /// template arguments as written (`texture2dmsarray:<float4,64>`; `texture2d` when
    /// none were written), for `UserTypeGOOGLE`.
    fn user_type_name(&self, d: DeclId, ty: Ty) -> String {
        let mut base = ty;
        while let TypeData::Array { elem, .. } = self.data(base) {
            base = *elem;
        }
        let TypeData::Object { kind, args } = self.data(base) else {
            return self.table.display(base).to_ascii_lowercase();
        };
        let mut name = kind.name().to_ascii_lowercase();
        let written_args = match &self.ast.decl(d).kind {
            DeclKind::Var(v) => {
                matches!(&self.ast.ty(v.ty).kind, spirvkit_hlsl::ast::TypeKind::Named { args: Some(a), .. } if !a.is_empty())
            }
            _ => true,
        };
        if written_args && !args.is_empty() {
            let shown: Vec<String> = args
                .iter()
                .map(|a| match a {
                    ObjectArg::Type(t) => self.table.display(*t),
                    ObjectArg::Int(n) => n.to_string(),
                    ObjectArg::Opaque => String::new(),
                })
                .collect();
            name.push_str(":<");
            name.push_str(&shown.join(","));
            name.push('>');
        }
        name
    }

    /// Decorates a resource variable with its `UserTypeGOOGLE` (`-fspv-reflect`).
    fn reflect_user_type(&mut self, op: OpId, user_type: String) {
        self.resources.user_types = true;
        self.ir
            .op_mut(op)
            .attributes
            .push(NamedAttribute::new("user_type_google", Attribute::String(user_type)));
    }

    /// `type.ACSBuffer.counter`: the block of one `int` every counter is.
    fn counter_block_type(&mut self) -> Type {
        if let Some(t) = self.resources.counter_type {
            return t;
        }
        let it = self.i32_type();
        let (_, deco) = self.storage_buffer_class();
        let body = StructBody {
            members: vec![StructMember { ty: it, offset: Some(0), decorations: Vec::new() }],
            decorations: vec![(deco.to_string(), None)],
        };
        let t = self.identified_struct("type.ACSBuffer.counter", body);
        self.resources.counter_type = Some(t);
        t
    }

    /// The pointer to the `int` counter of the buffer `base` refers to.
    fn counter_pointer(&mut self, base: ExprId) -> R<Value> {
        let (decl, index) = match &self.ast.expr(base).kind {
            ExprKind::Index { base: b, index } => (*b, Some(*index)),
            _ => (base, None),
        };
        let d = match self.tree.expr(decl).map(|i| i.resolution.clone()) {
            Some(spirvkit_hlsl::sema::tree::Resolution::Decl(d)) => d,
            _ => return self.unsupported("the counter of a buffer that is not a global variable"),
        };
        if index.is_none() {
            if let Some(&heap_index) = self.resources.heap_counter_index.get(&d) {
                // The counter of a buffer from the resource heap: the same index into
                // the heap of counters.
                let counters = self.heap_variable_pointer(Heap::Counter, None)?;
                let it = self.i32_type();
                let zero = self.u32_constant(0);
                return Ok(self.access_chain(counters, vec![heap_index, zero], it));
            }
        }
        let Some((symbol, ptr_ty)) = self.resources.counters.get(&d).cloned() else {
            return self.unsupported("the counter of this buffer");
        };
        let mut base_ptr = self.addressof(&symbol, ptr_ty);
        if let Some(i) = index {
            // dxc takes the element's counter block first, then its `int`.
            let i = self.rvalue(i)?;
            let block = self.counter_block_type();
            base_ptr = self.access_chain(base_ptr, vec![i], block);
        }
        let it = self.i32_type();
        let zero = self.u32_constant(0);
        Ok(self.access_chain(base_ptr, vec![zero], it))
    }

    /// `IncrementCounter`/`DecrementCounter` and the index `Append`/`Consume` use:
    /// the atomic add (the value before) or subtract (the value after).
    fn counter_step(&mut self, base: ExprId, increment: bool) -> R<Value> {
        let ptr = self.counter_pointer(base)?;
        let it = self.i32_type();
        let one = self.i32_constant(1);
        let props = vec![
            prop("memory_scope", crate::builder::enum_attr("scope", "Device")),
            prop("semantics", crate::builder::enum_attr("memory_semantics", "None")),
        ];
        if increment {
            return Ok(self.val_props("spirv.AtomicIAdd", vec![ptr, one], it, props));
        }
        let pre = self.val_props("spirv.AtomicISub", vec![ptr, one], it, props);
        Ok(self.val("spirv.ISub", vec![pre, one], it))
    }

    /// A `[[vk::constant_id(N)]]` constant: a `spirv.SpecConstant` with its default.
    fn spec_constant(&mut self, d: DeclId, ty: Ty, name: &str) -> R<()> {
        let Some(id) = self.int_attribute_args(d, "constant_id").and_then(|a| a.first().copied()) else {
            return self.unsupported("a specialization constant without an id");
        };
        let Some(value) = self.tree.decl(d).and_then(|i| i.constant) else {
            return self.unsupported("a specialization constant without a constant default");
        };
        if self.scalar_shape(ty).is_none_or(|(_, n)| n != 1) {
            return self.unsupported("a specialization constant that is not a scalar");
        }
        let t = self.ty(ty)?;
        let attr = self.scalar_attr(value, t);
        let symbol = self.unique_symbol(name);
        let i32t = self.i32_type();
        crate::builder::append(
            &mut self.ir,
            Some(self.module_block),
            "spirv.SpecConstant",
            vec![],
            None,
            vec![
                prop("sym_name", Attribute::String(symbol.clone())),
                prop("spec_id", Attribute::Integer { value: i128::from(id), ty: i32t }),
                prop("default_value", attr),
            ],
        );
        self.resources.spec_constants.insert(d, (symbol, t));
        Ok(())
    }

    /// A use of a specialization constant.
    pub fn spec_constant_ref(&mut self, d: DeclId) -> Option<Val> {
        let (symbol, t) = self.resources.spec_constants.get(&d).cloned()?;
        let ty = self.tree.decl(d).map_or(TypeTable::ERROR, |i| i.ty);
        let v = self.val_props(
            "spirv.mlir.referenceof",
            vec![],
            t,
            vec![prop("spec_const", crate::builder::symbol(&symbol))],
        );
        Some(Val::R(v, ty))
    }

    /// A composite of specialization constants only (a spec constant splatted to a
    /// vector): dxc's `OpSpecConstantComposite`, unnamed, one per type and parts.
    pub fn spec_constant_composite(&mut self, parts: &[Value], ty: Type) -> Option<Value> {
        if parts.is_empty() {
            return None;
        }
        let mut constituents = Vec::with_capacity(parts.len());
        for &p in parts {
            let op = self.def_op(p)?;
            let o = self.ir.op(op);
            if o.name != "spirv.mlir.referenceof" {
                return None;
            }
            constituents.push(o.attr("spec_const")?.clone());
        }
        let key = (ty, constituents.clone());
        let symbol = match self.resources.spec_composites.iter().find(|(k, _)| *k == key) {
            Some((_, symbol)) => symbol.clone(),
            None => {
                let symbol = self.unique_symbol("spec.composite");
                let (op, _) = crate::builder::append(
                    &mut self.ir,
                    None,
                    "spirv.SpecConstantComposite",
                    vec![],
                    None,
                    vec![
                        prop("type", Attribute::Type(ty)),
                        prop("sym_name", Attribute::String(symbol.clone())),
                        prop("constituents", Attribute::Array(constituents)),
                    ],
                );
                // Before the functions, after the spec constants it is made of.
                self.place_before_functions(op);
                self.unnamed_symbols.push(symbol.clone());
                self.resources.spec_composites.push((key, symbol.clone()));
                symbol
            }
        };
        Some(self.val_props(
            "spirv.mlir.referenceof",
            vec![],
            ty,
            vec![prop("spec_const", crate::builder::symbol(&symbol))],
        ))
    }

    /// Push-constant blocks are wrapped in a struct; members are reached through it.
    fn resources_push_constant_wrapper(&mut self, _d: DeclId) {}

    fn symbol_op(&self, symbol: &str) -> Option<spirvkit_ir::OpId> {
        self.ir
            .block(self.module_block)
            .ops
            .iter()
            .rev()
            .copied()
            .find(|&op| matches!(self.ir.op(op).attr("sym_name"), Some(Attribute::String(s)) if s == symbol))
    }

    /// The HLSL name of a type, for dxc's type names (`type.ConstantBuffer.S`).
    /// Scalars, vectors and matrices take the names of their SPIR-V types, as
    /// `spirv-dis` spells them (`uint`, `v3uint`, `mat2v3float` for `float2x3`).
    pub fn type_name(&self, ty: Ty) -> String {
        match self.data(ty) {
            // clang's name of an anonymous struct is empty (`type.PushConstant.`).
            TypeData::Struct(id) => self.table.struct_info(*id).map_or_else(
                || "struct".into(),
                |s| if s.name.starts_with("(anonymous") { String::new() } else { s.name.clone() },
            ),
            TypeData::Vector(s, 1) => self.scalar_type_name(*s).into(),
            TypeData::Scalar(s) => self.scalar_type_name(*s).into(),
            TypeData::Vector(s, n) => format!("v{n}{}", self.scalar_type_name(*s)),
            // An HLSL `RxC` matrix is R SPIR-V vectors of C components.
            TypeData::Matrix { elem, rows, cols, .. } => {
                format!("mat{rows}v{cols}{}", self.scalar_type_name(*elem))
            }
            _ => self.table.display(ty).replace(['<', '>', ' ', ','], ""),
        }
    }

    /// The name `spirv-dis` gives the SPIR-V type a scalar lowers to.
    fn scalar_type_name(&self, scalar: Scalar) -> &'static str {
        let sixteen = self.options.lower.sixteen_bit_types;
        match scalar {
            Scalar::Bool => "bool",
            Scalar::Int | Scalar::LiteralInt => "int",
            Scalar::UInt => "uint",
            Scalar::Int16 => "short",
            Scalar::UInt16 => "ushort",
            Scalar::Int64 => "long",
            Scalar::UInt64 => "ulong",
            Scalar::Float | Scalar::LiteralFloat => "float",
            Scalar::Double => "double",
            Scalar::Half | Scalar::Min16Float | Scalar::Min10Float if sixteen => "half",
            Scalar::Half | Scalar::Min16Float | Scalar::Min10Float => "float",
            Scalar::Min16Int | Scalar::Min12Int if sixteen => "short",
            Scalar::Min16Int | Scalar::Min12Int => "int",
            Scalar::Min16UInt if sixteen => "ushort",
            Scalar::Min16UInt => "uint",
        }
    }

    /// A struct type wrapping `inner` as member 0 (offset 0), decorated `decoration`
    /// (`Block`, or `BufferBlock` for a storage buffer before SPIR-V 1.4); the members
    /// of a `read_only` block are `NonWritable`.
    fn wrap_block_type(&mut self, inner: Type, name: &str, decoration: &str, read_only: bool) -> R<Type> {
        let mut body = StructBody::default();
        let mut member_names = None;
        match self.lower.store().kind(inner).clone() {
            TypeKind::IdentifiedStruct { name: inner_name } => {
                if let Some(b) = self.lower.store().struct_body(&inner_name) {
                    body = b.clone();
                }
                member_names = self.lower.store().struct_member_names(&inner_name).map(<[String]>::to_vec);
            }
            _ => body.members.push(StructMember { ty: inner, offset: Some(0), decorations: Vec::new() }),
        }
        if read_only {
            for m in &mut body.members {
                m.decorations.push(("NonWritable".into(), None));
            }
        }
        body.decorations.push((decoration.into(), None));
        let t = self.identified_struct(name, body);
        if let (Some(names), TypeKind::IdentifiedStruct { name }) =
            (member_names, self.lower.store().kind(t).clone())
        {
            self.store().set_struct_member_names(&name, names);
        }
        Ok(t)
    }

    /// Where each block member asked to go: `packoffset(cN.c)`, or `register(cN)` on a
    /// `$Globals` member (dxc honours it there only).
    fn block_placements(&self, members: &[DeclId], globals: bool) -> Vec<Placement> {
        let register = |text: &str| text.strip_prefix(['c', 'C']).and_then(|n| n.parse::<u32>().ok());
        members
            .iter()
            .map(|&m| {
                let DeclKind::Var(v) = &self.ast.decl(m).kind else { return Placement::Auto };
                for a in &v.annotations {
                    match a {
                        Annotation::PackOffset { register: r, component, .. } => {
                            let Some(n) = register(self.ast.name(r.name)) else { continue };
                            let c = component.as_ref().map_or(0, |c| match self.ast.name(c.name) {
                                "y" | "g" => 1,
                                "z" | "b" => 2,
                                "w" | "a" => 3,
                                _ => 0,
                            });
                            return Placement::PackOffset(n.saturating_mul(16).saturating_add(c * 4));
                        }
                        Annotation::Register { slot, profile: None, .. } if globals => {
                            if let Some(n) = register(self.ast.name(slot.name)) {
                                return Placement::Register(n);
                            }
                        }
                        _ => {}
                    }
                }
                Placement::Auto
            })
            .collect()
    }

    fn identified_struct(&mut self, name: &str, body: StructBody) -> Type {
        let mut n = name.to_string();
        let mut i = 0;
        while self.lower.store_mut().set_struct_body(&n, body.clone()).is_err() {
            n = format!("{name}_{i}");
            i += 1;
        }
        self.store().intern(TypeKind::IdentifiedStruct { name: n })
    }

    /// A `cbuffer`/`tbuffer`/`$Globals` block of `members`: a Uniform (or storage)
    /// variable whose members are the declarations, each reached as a member.
    fn block(
        &mut self,
        d: DeclId,
        name: &str,
        type_name: &str,
        members: &[DeclId],
        kind: BufferKind,
    ) -> R<String> {
        let rule = LayoutRule::for_buffer(kind, self.options.layout);
        let mut tys = Vec::new();
        for &m in members {
            tys.push((self.tree.decl(m).map_or(TypeTable::ERROR, |i| i.ty), Some(m)));
        }
        let placements = self.block_placements(members, name == "$Globals");
        let offsets = {
            let calc = self.lower.calculator(rule);
            calc.block_offsets(tys.clone(), &placements)
        };
        let offsets = self.lift(offsets)?;
        let mut body = StructBody::default();
        for (i, (ty, _)) in tys.iter().enumerate() {
            if let TypeData::Object { .. } = self.data(*ty) {
                return self.unsupported("a resource inside a cbuffer");
            }
            let t = self.ty_in(*ty, Some(rule))?;
            let decorations = {
                let r = self.lower.matrix_decorations(*ty, rule);
                self.lift(r)?
            };
            body.members.push(StructMember { ty: t, offset: offsets.get(i).copied(), decorations });
        }
        let (class, deco) = if kind == BufferKind::TextureBuffer {
            self.storage_buffer_class()
        } else {
            ("Uniform", "Block")
        };
        body.decorations.push((deco.to_string(), None));
        if kind == BufferKind::TextureBuffer {
            for m in &mut body.members {
                m.decorations.push(("NonWritable".into(), None));
            }
        }
        let block_ty = self.identified_struct(type_name, body);
        if let TypeKind::IdentifiedStruct { name } = self.lower.store().kind(block_ty).clone() {
            let names = members.iter().map(|&m| self.decl_name(m)).collect();
            self.store().set_struct_member_names(&name, names);
        }
        let ptr = self.pointer(block_ty, class);
        let symbol = self.unique_symbol(name);
        self.global_variable(&symbol, ptr, Vec::new());
        self.globals.insert(
            d,
            Global {
                symbol: symbol.clone(),
                ptr_type: ptr,
                ty: TypeTable::ERROR,
                rule: Some(rule),
                member_of: None,
            },
        );
        for (i, &m) in members.iter().enumerate() {
            let ty = tys[i].0;
            self.globals.insert(
                m,
                Global {
                    symbol: String::new(),
                    ptr_type: ptr,
                    ty,
                    rule: Some(rule),
                    member_of: Some((d, i as u32)),
                },
            );
        }
        Ok(symbol)
    }

    /// dxc's storage buffer class: `Uniform` + `BufferBlock` before SPIR-V 1.4,
    /// `StorageBuffer` + `Block` from 1.4.
    fn storage_buffer_class(&self) -> (&'static str, &'static str) {
        if self.options.spirv_version >= (1, 4) {
            ("StorageBuffer", "Block")
        } else {
            ("Uniform", "BufferBlock")
        }
    }

    /// The element type of `Texture2D<T>`-like objects (default `float4`).
    pub fn object_element(&self, ty: Ty) -> Ty {
        match self.data(ty) {
            TypeData::Object { args, .. } => match args.first() {
                Some(ObjectArg::Type(t)) => *t,
                _ => self.vector_ty(Scalar::Float, 4),
            },
            _ => ty,
        }
    }

    /// The type of the pointer to an unsized array of `elem` resources (the global's).
    pub fn unsized_resource_array_pointer(&mut self, elem: Ty) -> R<Type> {
        let TypeData::Object { kind, .. } = self.data(elem).clone() else {
            return self.unsupported(format!("the resource type '{}'", self.table.display(elem)));
        };
        let (pointee, class, _) = self.resource_pointee(elem, kind, kind.family())?;
        let array =
            self.store().intern(TypeKind::RuntimeArray { element: pointee, stride: None, stride_id: None });
        Ok(self.pointer(array, class))
    }

    /// A resource global; returns its symbol and its register letter.
    fn resource_global(&mut self, d: DeclId, ty: Ty, name: &str) -> R<(String, char)> {
        let (base_ty, array_len) = match self.data(ty).clone() {
            TypeData::Array { elem, len } => (elem, Some(len)),
            _ => (ty, None),
        };
        self.check_resource_global(d, ty)?;
        self.check_element_matrices(d, ty)?;
        let TypeData::Object { kind, .. } = self.data(base_ty).clone() else {
            return self.unsupported(format!("the resource type '{}'", self.table.display(ty)));
        };
        let family = kind.family();
        let register = match family {
            Family::Sampler | Family::ComparisonSampler => 's',
            Family::ConstantBuffer => 'b',
            Family::RWTexture
            | Family::RWBuffer
            | Family::RWStructuredBuffer
            | Family::AppendBuffer
            | Family::ConsumeBuffer
            | Family::RWByteAddressBuffer => 'u',
            _ => 't',
        };
        let (mut pointee, class, rule) = self.resource_pointee(base_ty, kind, family)?;
        if let Some(format) = self.string_attribute(d, "image_format") {
            if matches!(family, Family::Texture | Family::RWTexture | Family::Buffer | Family::RWBuffer) {
                let elem = self.object_element(base_ty);
                pointee = self.image_type(kind, elem, Some(&format))?;
            }
        }
        if matches!(family, Family::ConstantBuffer | Family::TextureBuffer) && array_len.is_none() {
            // A view reads as its element type; an array of them (below) is indexed to
            // a view (`index_expr`).
            let elem = self.object_element(base_ty);
            let ptr = self.pointer(pointee, class);
            let symbol = self.unique_symbol(name);
            self.global_variable(&symbol, ptr, Vec::new());
            self.globals
                .insert(d, Global { symbol: symbol.clone(), ptr_type: ptr, ty: elem, rule, member_of: None });
            return Ok((symbol, register));
        }
        let var_ty = match array_len {
            Some(Some(n)) => self.store().array(pointee, n, None),
            Some(None) => {
                self.require("RuntimeDescriptorArray", self.descriptor_indexing_extension());
                self.store().intern(TypeKind::RuntimeArray {
                    element: pointee,
                    stride: None,
                    stride_id: None,
                })
            }
            None => pointee,
        };
        let ptr = self.pointer(var_ty, class);
        let symbol = self.unique_symbol(name);
        let mut decorations = Vec::new();
        if family == Family::SubpassInput {
            if let Some(index) =
                self.int_attribute_args(d, "input_attachment_index").and_then(|a| a.first().copied())
            {
                decorations.push(prop("input_attachment_index", i32_attr(self.store(), index)));
            }
        }
        // `globallycoherent`: the GLSL450 memory model's Coherent (dxc; the Vulkan
        // memory model, not supported yet, would use memory operands instead).
        if self.ast.decl(d).modifiers.contains(Modifiers::GLOBALLYCOHERENT) {
            decorations.push(prop("coherent", Attribute::Unit));
        }
        self.global_variable(&symbol, ptr, decorations);
        self.globals.insert(d, Global { symbol: symbol.clone(), ptr_type: ptr, ty, rule, member_of: None });
        Ok((symbol, register))
    }

    /// The type a resource variable points to, its storage class and layout rule
    /// (one identified block struct per buffer kind and element type).
    fn resource_pointee(
        &mut self,
        base_ty: Ty,
        kind: ObjectKind,
        family: Family,
    ) -> R<(Type, &'static str, Option<LayoutRule>)> {
        if let Some(&done) = self.resources.pointees.get(&base_ty) {
            return Ok(done);
        }
        let r = self.resource_pointee_new(base_ty, kind, family)?;
        self.resources.pointees.insert(base_ty, r);
        Ok(r)
    }

    fn resource_pointee_new(
        &mut self,
        base_ty: Ty,
        kind: ObjectKind,
        family: Family,
    ) -> R<(Type, &'static str, Option<LayoutRule>)> {
        Ok(match family {
            Family::Texture
            | Family::RWTexture
            | Family::Buffer
            | Family::RWBuffer
            | Family::Sampler
            | Family::ComparisonSampler
            | Family::SubpassInput => (self.resource_value_type(base_ty)?, "UniformConstant", None),
            Family::AccelerationStructure => (self.acceleration_structure_type(), "UniformConstant", None),
            Family::StructuredBuffer
            | Family::RWStructuredBuffer
            | Family::AppendBuffer
            | Family::ConsumeBuffer => {
                let elem = self.object_element(base_ty);
                let rule = LayoutRule::for_buffer(BufferKind::StructuredBuffer, self.options.layout);
                let et = self.ty_in(elem, Some(rule))?;
                let stride = {
                    let c = self.lower.calculator(rule);
                    c.layout(elem)
                };
                let stride = self.lift(stride)?;
                let stride = stride.size.max(1);
                let stride = round_up(stride, stride_align(self, elem, rule));
                let tname = format!("type.{}.{}", kind.name(), self.type_name(elem));
                let read_only = family == Family::StructuredBuffer;
                // A matrix element (or array of matrices) needs its stride and
                // majorness on the block's member, the only place SPIR-V takes them.
                let matrix = {
                    let r = self.lower.matrix_decorations(elem, rule);
                    self.lift(r)?
                };
                let (block, class) = self.runtime_array_block(et, stride, read_only, matrix, &tname);
                (block, class, Some(rule))
            }
            Family::ByteAddressBuffer | Family::RWByteAddressBuffer => {
                let u = self.u32_type();
                let tname = format!("type.{}", kind.name());
                let read_only = family == Family::ByteAddressBuffer;
                let (block, class) = self.runtime_array_block(u, 4, read_only, Vec::new(), &tname);
                (block, class, None)
            }
            Family::ConstantBuffer | Family::TextureBuffer => {
                let elem = self.object_element(base_ty);
                let bk = if family == Family::ConstantBuffer {
                    BufferKind::ConstantBuffer
                } else {
                    BufferKind::TextureBuffer
                };
                let rule = LayoutRule::for_buffer(bk, self.options.layout);
                let inner = self.ty_in(elem, Some(rule))?;
                let tname = format!("type.{}.{}", kind.name(), self.type_name(elem));
                // A TextureBuffer is a read-only storage buffer (dxc): `BufferBlock` in
                // the Uniform class before SPIR-V 1.4, so its std430 layout is valid.
                let (class, decoration) = if family == Family::ConstantBuffer {
                    ("Uniform", "Block")
                } else {
                    self.storage_buffer_class()
                };
                let read_only = family == Family::TextureBuffer;
                let block = self.wrap_block_type(inner, &tname, decoration, read_only)?;
                (block, class, Some(rule))
            }
            _ => return self.unsupported(format!("the resource type '{}'", self.table.display(base_ty))),
        })
    }

    /// A storage buffer block holding one runtime array of `element` (structured and
    /// byte-address buffers): the block type and its storage class. `matrix` is the
    /// member's `MatrixStride` and majorness when the element is a matrix.
    fn runtime_array_block(
        &mut self,
        element: Type,
        stride: u32,
        read_only: bool,
        matrix: Vec<(String, Option<String>)>,
        name: &str,
    ) -> (Type, &'static str) {
        let rt =
            self.store().intern(TypeKind::RuntimeArray { element, stride: Some(stride), stride_id: None });
        let (class, deco) = self.storage_buffer_class();
        let mut decorations = matrix;
        if read_only {
            decorations.push(("NonWritable".to_string(), None));
        }
        let body = StructBody {
            members: vec![StructMember { ty: rt, offset: Some(0), decorations }],
            decorations: vec![(deco.to_string(), None)],
        };
        (self.identified_struct(name, body), class)
    }

    /// The block struct a buffer object's variables point to.
    pub fn resource_block(&mut self, ty: Ty, kind: ObjectKind) -> R<Type> {
        Ok(self.resource_pointee(ty, kind, kind.family())?.0)
    }

    pub fn require_extension(&mut self, extension: &str) {
        if !self.resources.extensions.iter().any(|x| x == extension) {
            self.resources.extensions.push(extension.to_string());
        }
    }

    /// `NonUniformResourceIndex(i)`: a copy of the index decorated `NonUniform`, from
    /// which the decoration spreads to what is computed from it (dxc's rule).
    pub fn non_uniform_index(&mut self, index: Value) -> Value {
        let ty = self.ir.value_type(index);
        let copy =
            self.val_props("spirv.CopyObject", vec![index], ty, vec![prop("non_uniform", Attribute::Unit)]);
        self.note_non_uniform(copy);
        copy
    }

    /// The `NonUniform` decoration op `name` gets when one of `operands` has it.
    pub(crate) fn non_uniform_prop(&self, name: &str, operands: &[Value]) -> Option<NamedAttribute> {
        let flagged = !self.resources.non_uniform.is_empty()
            && propagates_non_uniform(name)
            && operands.iter().any(|v| self.resources.non_uniform.contains(v));
        flagged.then(|| prop("non_uniform", Attribute::Unit))
    }

    /// Records `value` as decorated `NonUniform` with the capabilities that needs: an
    /// access chain into an array of descriptors needs the indexing capability of
    /// their kind.
    pub(crate) fn note_non_uniform(&mut self, value: Value) {
        self.resources.non_uniform.insert(value);
        self.require("ShaderNonUniform", self.descriptor_indexing_extension());
        let ty = self.ir.value_type(value);
        let TypeKind::Pointer { pointee, storage_class, .. } = self.lower.store().kind(ty).clone() else {
            return;
        };
        let capability = match (self.lower.store().kind(pointee).clone(), storage_class.as_str()) {
            (TypeKind::SampledImage(_) | TypeKind::Sampler, _) => "SampledImageArrayNonUniformIndexing",
            (TypeKind::Image { params, .. }, _) => {
                let param = |i: usize| params.get(i).map_or("", String::as_str);
                match (param(0), param(4)) {
                    ("SubpassData", _) => "InputAttachmentArrayNonUniformIndexing",
                    ("Buffer", "NoSampler") => "StorageTexelBufferArrayNonUniformIndexing",
                    ("Buffer", _) => "UniformTexelBufferArrayNonUniformIndexing",
                    (_, "NoSampler") => "StorageImageArrayNonUniformIndexing",
                    _ => "SampledImageArrayNonUniformIndexing",
                }
            }
            (TypeKind::IdentifiedStruct { .. } | TypeKind::LiteralStruct(_), "Uniform") => {
                // A `BufferBlock` struct in Uniform is a storage buffer (before SPIR-V 1.3).
                if self.is_buffer_block(pointee) {
                    "StorageBufferArrayNonUniformIndexing"
                } else {
                    "UniformBufferArrayNonUniformIndexing"
                }
            }
            (TypeKind::IdentifiedStruct { .. } | TypeKind::LiteralStruct(_), "StorageBuffer") => {
                "StorageBufferArrayNonUniformIndexing"
            }
            _ => return,
        };
        self.require(capability, self.descriptor_indexing_extension());
    }

    /// `SPV_EXT_descriptor_indexing`, which brings the descriptor indexing capabilities
    /// before SPIR-V 1.5 (core from then on).
    fn descriptor_indexing_extension(&self) -> Option<&'static str> {
        (self.options.spirv_version < (1, 5)).then_some("SPV_EXT_descriptor_indexing")
    }

    /// Whether struct type `ty` is decorated `BufferBlock` (a storage buffer in the
    /// Uniform class).
    fn is_buffer_block(&self, ty: Type) -> bool {
        let store = self.lower.store();
        let body = match store.kind(ty) {
            TypeKind::IdentifiedStruct { name } => store.struct_body(name),
            TypeKind::LiteralStruct(body) => Some(body),
            _ => None,
        };
        body.is_some_and(|b| b.decorations.iter().any(|(d, _)| d == "BufferBlock"))
    }

    /// Declares a capability (and the extension bringing it) the module needs beyond
    /// what its instructions' grammar availability says.
    pub fn require(&mut self, capability: &str, extension: Option<&str>) {
        if !self.resources.capabilities.iter().any(|c| c == capability) {
            self.resources.capabilities.push(capability.to_string());
        }
        if let Some(e) = extension {
            if !self.resources.extensions.iter().any(|x| x == e) {
                self.resources.extensions.push(e.to_string());
            }
        }
    }

    /// The IR type a resource value has: an image, a sampler, or for buffers the
    /// pointer to their block.
    pub fn resource_value_type(&mut self, ty: Ty) -> R<Type> {
        let TypeData::Object { kind, args } = self.data(ty).clone() else { return self.ty(ty) };
        let family = kind.family();
        match family {
            Family::Sampler | Family::ComparisonSampler => {
                let t = self.store().intern(TypeKind::Sampler);
                self.store().set_type_name(t, "type.sampler");
                Ok(t)
            }
            Family::Texture
            | Family::RWTexture
            | Family::Buffer
            | Family::RWBuffer
            | Family::SubpassInput => {
                let elem = match args.first() {
                    Some(ObjectArg::Type(t)) => *t,
                    _ => self.vector_ty(Scalar::Float, 4),
                };
                self.image_type(kind, elem, None)
            }
            Family::StructuredBuffer
            | Family::RWStructuredBuffer
            | Family::AppendBuffer
            | Family::ConsumeBuffer
            | Family::ByteAddressBuffer
            | Family::RWByteAddressBuffer
            | Family::ConstantBuffer
            | Family::TextureBuffer => {
                // A buffer value is the pointer to its block (legalization replaces a
                // local holding one by the global).
                let (pointee, class, _) = self.resource_pointee(ty, kind, family)?;
                Ok(self.pointer(pointee, class))
            }
            Family::AccelerationStructure => Ok(self.acceleration_structure_type()),
            Family::RayQuery => Ok(self.ray_query_type()),
            Family::Stream | Family::InputPatch | Family::OutputPatch => match self.stage_object_type(ty)? {
                Some(t) => Ok(t),
                None => self.unsupported(format!("a local of type '{}'", self.table.display(ty))),
            },
            _ => self.unsupported(format!("a local of type '{}'", self.table.display(ty))),
        }
    }

    /// The image type of a texture, typed buffer or subpass input with element `elem`,
    /// as dxc builds it: depth unknown (0 for `SampledTexture*`), sampled 1, or 2 for
    /// storage images and subpass inputs, the format given by `[[vk::image_format]]`
    /// (`format`) or inferred from the element for storage images and typed buffers;
    /// named `type.<dim>.image[.array]` and with the capabilities it needs.
    pub fn image_type(&mut self, kind: ObjectKind, elem: Ty, format: Option<&str>) -> R<Type> {
        let family = kind.family();
        let (s, n) = self.scalar_shape(elem).unwrap_or((Scalar::Float, 4));
        let declared_scalar = s;
        let s = match s {
            // Sampled types are 32 or 64 bits; bool reads as uint.
            Scalar::Bool => Scalar::UInt,
            s if s.bits(self.options.lower.sixteen_bit_types) == 16 && !s.is_float() => {
                if s.is_signed() {
                    Scalar::Int
                } else {
                    Scalar::UInt
                }
            }
            s if s.is_float()
                && s.bits(self.options.lower.sixteen_bit_types) == 16
                && !self.options.universal_env =>
            {
                return self.rejected_here(
                    "The sampled type for textures cannot be a floating point type smaller than 32-bits when targeting a Vulkan environment.",
                );
            }
            s => s,
        };
        let st = self.ty(self.scalar_ty(s))?;
        let shape = kind.shape();
        let combined = kind.name().starts_with("Sampled");
        let (dim, dim_name) = match (family, shape) {
            (Family::Buffer | Family::RWBuffer, _) => ("Buffer", "buffer"),
            (Family::SubpassInput, _) => ("SubpassData", "subpass"),
            (_, Some(sh)) if sh.cube => ("Cube", "cube"),
            (_, Some(sh)) => match sh.dims {
                1 => ("Dim1D", "1d"),
                3 => ("Dim3D", "3d"),
                _ => ("Dim2D", "2d"),
            },
            _ => ("Dim2D", "2d"),
        };
        let arrayed = shape.is_some_and(|sh| sh.array);
        let ms = shape.is_some_and(|sh| sh.multisampled) || kind == ObjectKind::SubpassInputMS;
        let storage = matches!(family, Family::RWTexture | Family::RWBuffer);
        let no_sampler = storage || family == Family::SubpassInput;
        let format = match format {
            Some(f) => image_format_by_name(f).map_or("Unknown", |f| f),
            None if (storage || family == Family::Buffer) && !self.options.unknown_image_format => {
                image_format(declared_scalar, s, n, self.options.lower.sixteen_bit_types)
            }
            None => "Unknown",
        };
        let params = [
            dim.to_string(),
            if combined { "NoDepth".into() } else { "DepthUnknown".into() },
            if arrayed { "Arrayed".into() } else { "NonArrayed".into() },
            if ms { "MultiSampled".into() } else { "SingleSampled".into() },
            if no_sampler { "NoSampler".into() } else { "NeedSampler".into() },
            format.to_string(),
        ];
        let image = self.store().intern(TypeKind::Image { element: st, params });
        let name = format!("type.{dim_name}.image{}", if arrayed { ".array" } else { "" });
        self.store().set_type_name(image, &name);
        match (dim, no_sampler) {
            ("Buffer", false) => self.require("SampledBuffer", None),
            ("Buffer", true) => {
                // dxc declares SampledBuffer for every buffer image, then ImageBuffer.
                self.require("SampledBuffer", None);
                self.require("ImageBuffer", None);
            }
            ("Dim1D", false) => self.require("Sampled1D", None),
            ("Dim1D", true) => self.require("Image1D", None),
            ("Cube", false) if arrayed => self.require("SampledCubeArray", None),
            ("Cube", true) if arrayed => self.require("ImageCubeArray", None),
            ("SubpassData", _) => self.require("InputAttachment", None),
            _ => {}
        }
        if storage && ms && arrayed {
            self.require("ImageMSArray", None);
        }
        if is_extended_format(format) {
            self.require("StorageImageExtendedFormats", None);
        }
        if matches!(s, Scalar::Int64 | Scalar::UInt64) {
            self.require("Int64ImageEXT", Some("SPV_EXT_shader_image_int64"));
        }
        if combined {
            let si = self.store().intern(TypeKind::SampledImage(image));
            self.store().set_type_name(si, "type.sampled.image");
            return Ok(si);
        }
        Ok(image)
    }

    /// The sampled image type of `image` (`OpSampledImage`'s result), named as dxc.
    pub fn sampled_image_type(&mut self, image: Type) -> Type {
        let si = self.store().intern(TypeKind::SampledImage(image));
        self.store().set_type_name(si, "type.sampled.image");
        si
    }

    /// The string argument of a declaration's `[[vk::NAME("...")]]`.
    fn string_attribute(&self, d: DeclId, name: &str) -> Option<String> {
        let a = self.vk_attribute(d, name)?;
        let &arg = a.args.first()?;
        let ExprKind::StringLiteral(parts) = &self.ast.expr(arg).kind else { return None };
        Some(parts.iter().map(|p| self.name(*p).trim_matches('"').to_string()).collect())
    }

    /// A declaration's `[[vk::NAME(...)]]` attribute.
    pub(super) fn vk_attribute(&self, d: DeclId, name: &str) -> Option<&'t spirvkit_hlsl::ast::Attribute> {
        let ast: &'t spirvkit_hlsl::ast::Ast = self.ast;
        ast.decl(d)
            .attrs
            .iter()
            .find(|a| a.namespace.is_some_and(|n| ast.name(n.name) == "vk") && ast.name(a.name.name) == name)
    }

    /// The integer arguments of a declaration's `[[vk::NAME(...)]]`.
    pub(super) fn int_attribute_args(&self, d: DeclId, name: &str) -> Option<Vec<i64>> {
        let a = self.vk_attribute(d, name)?;
        Some(a.args.iter().filter_map(|&e| self.attribute_int(e)).collect())
    }

    /// An integer attribute argument: its constant, or the literal itself (sema types
    /// the arguments of some attributes only).
    pub(super) fn attribute_int(&self, e: ExprId) -> Option<i64> {
        self.tree.expr(e).and_then(|i| i.constant).and_then(|c| c.as_int()).or_else(|| {
            match &self.ast.expr(e).kind {
                ExprKind::IntLiteral { value, .. } => i64::try_from(*value).ok(),
                _ => None,
            }
        })
    }

    /// `-auto-binding-space`, else 0: the set of what names none.
    fn default_space(&self) -> u32 {
        self.options.bindings.auto_space.unwrap_or(0)
    }

    /// `-fvk-bind-register` was given: every resource is bound through it.
    fn binds_registers(&self) -> bool {
        !self.options.bindings.registers.is_empty()
    }

    /// The space a declaration's `register(..., spaceN)` or `register(spaceN)` names.
    fn register_space(&self, annotations: &[Annotation]) -> Option<u32> {
        annotations.iter().find_map(|a| match a {
            Annotation::Register { slot, space, profile: None, .. } => {
                let named = space.map_or(*slot, |s| s);
                self.name(named.name).to_ascii_lowercase().strip_prefix("space")?.parse().ok()
            }
            _ => None,
        })
    }

    /// The binding numbers a resource of type `ty` occupies: one, or with
    /// `-fspv-flatten-resource-arrays` one per element of an array (dxc's
    /// `getNumBindingsUsedByResourceType`).
    fn bindings_used(&self, ty: Ty) -> u32 {
        if !self.options.bindings.flatten_arrays {
            return 1;
        }
        let mut count: u32 = 1;
        let mut t = ty;
        while let TypeData::Array { elem, len } = self.data(t) {
            count = count.saturating_mul(len.unwrap_or(1));
            t = *elem;
        }
        count
    }

    /// The shift `-fvk-{b,t,s,u}-shift` gives register `letter` in `set`: the one for
    /// that set, else the one for every set.
    fn register_shift(&self, letter: char, set: u32) -> u32 {
        let shifts = &self.options.bindings.shifts;
        let of_letter = || shifts.iter().rev().filter(|(r, _, _)| *r == letter);
        of_letter()
            .find(|(_, _, sp)| *sp == Some(set))
            .or_else(|| of_letter().find(|(_, _, sp)| sp.is_none()))
            .map_or(0, |(_, s, _)| *s)
    }

    /// How a declaration places its resource: `[[vk::binding]]`, the
    /// `-fvk-bind-register` mapping of its register, `register()` (shifted), a
    /// space-only `register(spaceN)`, or nothing.
    fn binding_source(&self, d: DeclId, annotations: &[Annotation]) -> BindingSource {
        let default_space = self.default_space();
        if let Some(a) = self.vk_attribute(d, "binding") {
            let int = |i: usize| {
                a.args.get(i).and_then(|&e| self.attribute_int(e)).and_then(|v| u32::try_from(v).ok())
            };
            if let Some(binding) = int(0) {
                return BindingSource::Attribute(int(1).unwrap_or(default_space), binding);
            }
        }
        for a in annotations {
            let Annotation::Register { slot, space, profile: None, .. } = a else { continue };
            let slot = self.name(slot.name).to_ascii_lowercase();
            let set = match space {
                Some(s) => {
                    match self
                        .name(s.name)
                        .to_ascii_lowercase()
                        .strip_prefix("space")
                        .and_then(|n| n.parse().ok())
                    {
                        Some(n) => n,
                        None => continue,
                    }
                }
                None => default_space,
            };
            // `register(spaceN)` (the parser leaves its slot empty).
            if slot.is_empty() {
                return BindingSource::SpaceOnly(set);
            }
            let Some(letter) = slot.chars().next() else { continue };
            let Some(number) = slot.get(1..).and_then(|n| n.parse::<u32>().ok()) else { continue };
            if let Some((_, _, b, s)) = self
                .options
                .bindings
                .registers
                .iter()
                .find(|(r, sp, _, _)| r.eq_ignore_ascii_case(&slot) && *sp == set)
            {
                return BindingSource::Attribute(*s, *b);
            }
            // A combined image sampler takes the `t` shift for its `s` register.
            let letter = if letter == 's' && self.vk_attribute(d, "combinedImageSampler").is_some() {
                't'
            } else {
                letter
            };
            // `register(cN)` places a member of `$Globals`, never a binding.
            if letter == 'c' {
                continue;
            }
            return BindingSource::Register(set, number.saturating_add(self.register_shift(letter, set)));
        }
        BindingSource::Implicit
    }

    /// Decorates the resources in dxc's three passes (`decorateResourceBindings`):
    /// `[[vk::binding]]` and `[[vk::counter_binding]]`, then `register()`, then in
    /// declaration order the others, each taking the first run of free numbers of
    /// its set (from its register's shift with `-fvk-auto-shift-bindings`). The order
    /// of the passes is the order of the decorations (`binding_order`).
    fn assign_bindings(&mut self, pending: Vec<Pending>) {
        let mut used: HashMap<u32, std::collections::BTreeSet<u32>> = HashMap::new();
        let take =
            |used: &mut HashMap<u32, std::collections::BTreeSet<u32>>, set: u32, first: u32, n: u32| {
                let numbers = used.entry(set).or_default();
                for i in 0..n {
                    numbers.insert(first.saturating_add(i));
                }
            };
        // Heap bindings given on the command line are taken even by unused heaps.
        let b = self.options.bindings.clone();
        for (binding, set) in [b.resource_heap, b.sampler_heap, b.counter_heap].into_iter().flatten() {
            take(&mut used, set, binding, 1);
        }
        let mut decided: Vec<Option<(u32, u32)>> = vec![None; pending.len()];
        let mut order: Vec<usize> = Vec::new();
        for (i, p) in pending.iter().enumerate() {
            let fixed = match p.source {
                BindingSource::Counter { set, binding: Some(binding) } => Some((set, binding)),
                BindingSource::Attribute(set, binding) => Some((set, binding)),
                _ => None,
            };
            if let Some((set, binding)) = fixed {
                take(&mut used, set, binding, p.count);
                decided[i] = Some((set, binding));
                order.push(i);
            }
        }
        for (i, p) in pending.iter().enumerate() {
            if let BindingSource::Register(set, binding) = p.source {
                take(&mut used, set, binding, p.count);
                decided[i] = Some((set, binding));
                order.push(i);
            }
        }
        let default_space = self.default_space();
        for (i, p) in pending.iter().enumerate() {
            let set = match p.source {
                BindingSource::Counter { set, binding: None } => set,
                BindingSource::SpaceOnly(set) => set,
                BindingSource::Implicit => match b.globals {
                    Some((binding, set)) if p.globals => {
                        let shift = if b.auto_shift { self.register_shift(p.register, set) } else { 0 };
                        decided[i] = Some((set, binding.saturating_add(shift)));
                        order.push(i);
                        continue;
                    }
                    _ => default_space,
                },
                _ => continue,
            };
            let shift = if b.auto_shift { self.register_shift(p.register, set) } else { 0 };
            let numbers = used.entry(set).or_default();
            let first = first_free_run(numbers, p.count, shift);
            take(&mut used, set, first, p.count);
            decided[i] = Some((set, first));
            order.push(i);
        }
        for i in order {
            let Some((set, binding)) = decided[i] else { continue };
            let p = &pending[i];
            self.binding_order.push(p.symbol.clone());
            let mut attrs: Vec<NamedAttribute> = self.ir.op(p.op).properties.clone();
            attrs.extend(self.ir.op(p.op).attributes.iter().cloned());
            attrs.push(prop("descriptor_set", i32_attr(self.store(), i64::from(set))));
            attrs.push(prop("binding", i32_attr(self.store(), i64::from(binding))));
            crate::builder::set_attributes(&mut self.ir, p.op, attrs);
        }
        for (set, numbers) in used {
            self.resources.used_bindings.extend(numbers.into_iter().map(|n| (set, n)));
        }
    }

    // ---- descriptor heaps -------------------------------------------------------------

    /// `ResourceDescriptorHeap[i]` / `SamplerDescriptorHeap[i]` (through parentheses):
    /// the heap and the index expression.
    pub fn heap_element(&self, e: ExprId) -> Option<(Heap, ExprId)> {
        let mut e = e;
        while let ExprKind::Paren(inner) = &self.ast.expr(e).kind {
            e = *inner;
        }
        let ExprKind::Index { base, index } = &self.ast.expr(e).kind else { return None };
        match self.tree.expr(*base).map(|i| &i.resolution) {
            Some(spirvkit_hlsl::sema::tree::Resolution::BuiltinMember("ResourceDescriptorHeap")) => {
                Some((Heap::Resource, *index))
            }
            Some(spirvkit_hlsl::sema::tree::Resolution::BuiltinMember("SamplerDescriptorHeap")) => {
                Some((Heap::Sampler, *index))
            }
            _ => None,
        }
    }

    /// A heap element as a resource of type `to`: its element of the heap's runtime
    /// array of that type (loaded for images and samplers; buffers are their pointer).
    pub fn heap_value(&mut self, heap: Heap, index: ExprId, to: Ty) -> R<Value> {
        let TypeData::Object { kind, .. } = self.data(to).clone() else {
            return self
                .unsupported(format!("a descriptor heap element of type '{}'", self.table.display(to)));
        };
        let family = kind.family();
        let (pointee, _, _) = self.resource_pointee(to, kind, family)?;
        let i = self.index_value(index)?;
        self.resources.last_heap_index = Some(i);
        let heap_ptr = self.heap_variable_pointer(heap, Some((to, kind)))?;
        let element = self.access_chain(heap_ptr, vec![i], pointee);
        Ok(match family {
            Family::Texture
            | Family::RWTexture
            | Family::Buffer
            | Family::RWBuffer
            | Family::Sampler
            | Family::ComparisonSampler => self.load(element),
            _ => element,
        })
    }

    /// The pointer to a heap's runtime array of `element` resources (`None`: the
    /// counters), declared the first time it is used.
    fn heap_variable_pointer(&mut self, heap: Heap, element: Option<(Ty, ObjectKind)>) -> R<Value> {
        let (pointee, class) = match element {
            Some((ty, kind)) => {
                let (pointee, class, _) = self.resource_pointee(ty, kind, kind.family())?;
                (pointee, class)
            }
            None => {
                let block = self.counter_block_type();
                (block, self.storage_buffer_class().0)
            }
        };
        let rt =
            self.store().intern(TypeKind::RuntimeArray { element: pointee, stride: None, stride_id: None });
        let ptr_ty = self.pointer(rt, class);
        let found = self.resources.heap_variables.iter().find(|v| v.0 == heap && v.1 == pointee);
        let symbol = match found {
            Some(v) => v.2.clone(),
            None => {
                self.require("RuntimeDescriptorArray", self.descriptor_indexing_extension());
                let symbol = self.unique_symbol(heap.name());
                let op = self.global_variable(&symbol, ptr_ty, Vec::new());
                self.resources.heap_variables.push((heap, pointee, symbol.clone(), op));
                symbol
            }
        };
        Ok(self.addressof(&symbol, ptr_ty))
    }

    /// Binds the heaps used, once every other resource is bound: the bindings given on
    /// the command line, else the first free ones of set 0, in the order resource
    /// heap, sampler heap, counters (SPIR-V.rst).
    pub(super) fn bind_heaps(&mut self) {
        let options = self.options.bindings.clone();
        let mut used = std::mem::take(&mut self.resources.used_bindings);
        for (binding, set) in
            [options.resource_heap, options.sampler_heap, options.counter_heap].into_iter().flatten()
        {
            used.insert((set, binding));
        }
        let variables = self.resources.heap_variables.clone();
        for heap in [Heap::Resource, Heap::Sampler, Heap::Counter] {
            let ops: Vec<spirvkit_ir::OpId> = variables.iter().filter(|v| v.0 == heap).map(|v| v.3).collect();
            if ops.is_empty() {
                continue;
            }
            let fixed = match heap {
                Heap::Resource => options.resource_heap,
                Heap::Sampler => options.sampler_heap,
                Heap::Counter => options.counter_heap,
            };
            let (binding, set) = fixed.unwrap_or_else(|| {
                let mut b = 0;
                while used.contains(&(0, b)) {
                    b += 1;
                }
                used.insert((0, b));
                (b, 0)
            });
            for op in ops {
                if let Some(Attribute::String(symbol)) = self.ir.op(op).attr("sym_name") {
                    self.binding_order.push(symbol.clone());
                }
                let mut attrs: Vec<NamedAttribute> = self.ir.op(op).properties.clone();
                attrs.extend(self.ir.op(op).attributes.iter().cloned());
                attrs.push(prop("descriptor_set", i32_attr(self.store(), i64::from(set))));
                attrs.push(prop("binding", i32_attr(self.store(), i64::from(binding))));
                crate::builder::set_attributes(&mut self.ir, op, attrs);
            }
        }
        self.resources.used_bindings = used;
    }

    /// After a local buffer's initialization: when it came from the resource heap
    /// (directly, or returned by functions that return one element of it), its
    /// counter is the element of the counter heap at the same index.
    pub fn note_heap_buffer(&mut self, d: DeclId, init: ExprId) {
        let ty = self.tree.decl(d).map_or(TypeTable::ERROR, |i| i.ty);
        let has_counter = matches!(self.data(ty), TypeData::Object { kind, .. }
            if matches!(kind.family(), Family::RWStructuredBuffer | Family::AppendBuffer | Family::ConsumeBuffer));
        if !has_counter {
            return;
        }
        if self.heap_element(init).is_some() {
            if let Some(i) = self.resources.last_heap_index {
                self.resources.heap_counter_index.insert(d, i);
            }
        } else if let Some(c) = self.returned_heap_index(init, 0) {
            let i = self.u32_constant(c);
            self.resources.heap_counter_index.insert(d, i);
        }
    }

    /// The constant resource-heap index a call returns when its function's body is
    /// `return ResourceDescriptorHeap[C];` (or a call of such a function).
    fn returned_heap_index(&self, e: ExprId, depth: u32) -> Option<u32> {
        if depth > 8 {
            return None;
        }
        if let Some((Heap::Resource, index)) = self.heap_element(e) {
            let c = self.tree.expr(index)?.constant?.as_int()?;
            return u32::try_from(c).ok();
        }
        let mut e = e;
        while let ExprKind::Paren(inner) = &self.ast.expr(e).kind {
            e = *inner;
        }
        let call = self.tree.calls.get(&e)?;
        let spirvkit_hlsl::sema::tree::Callee::Function(f) = call.callee else { return None };
        let DeclKind::Function(function) = &self.ast.decl(f).kind else { return None };
        let body = function.body?;
        let stmts = match &self.ast.stmt(body).kind {
            spirvkit_hlsl::ast::StmtKind::Block(stmts) => stmts.as_slice(),
            _ => return None,
        };
        match stmts {
            [only] => match &self.ast.stmt(*only).kind {
                spirvkit_hlsl::ast::StmtKind::Return(Some(value)) => {
                    self.returned_heap_index(*value, depth + 1)
                }
                _ => None,
            },
            _ => None,
        }
    }

    // ---- object access ---------------------------------------------------------------

    /// The pointer to a buffer object's block (a global, or held by a local).
    pub fn buffer_pointer(&mut self, e: ExprId) -> R<Value> {
        match self.expr(e)? {
            Val::P(Place::Ptr { ptr, .. }) => {
                if self.holds_pointer(ptr) {
                    Ok(self.load(ptr))
                } else {
                    Ok(ptr)
                }
            }
            Val::R(v, _) => Ok(v),
            _ => self.unsupported("this buffer expression"),
        }
    }

    /// An image or sampler object's value.
    pub fn object_value(&mut self, e: ExprId) -> R<Value> {
        self.at_expr(e, |s| match s.expr(e)? {
            Val::P(Place::Ptr { ptr, .. }) => Ok(s.load(ptr)),
            Val::R(v, _) => Ok(v),
            _ => s.unsupported("this object expression"),
        })
    }

    pub(super) fn object_index(
        &mut self,
        base: ExprId,
        base_ty: Ty,
        kind: ObjectKind,
        index: ExprId,
        ty: Ty,
    ) -> R<Val> {
        match kind.family() {
            Family::StructuredBuffer
            | Family::RWStructuredBuffer
            | Family::AppendBuffer
            | Family::ConsumeBuffer => {
                let ptr = self.buffer_pointer(base)?;
                let rule = LayoutRule::for_buffer(BufferKind::StructuredBuffer, self.options.layout);
                let i = self.index_value(index)?;
                let zero = self.i32_constant(0);
                let et = self.ty_in(ty, Some(rule))?;
                let p = self.access_chain(ptr, vec![zero, i], et);
                Ok(Val::P(Place::Ptr { ptr: p, ty, rule: Some(rule) }))
            }
            Family::RWTexture | Family::RWBuffer => {
                let image = match self.expr(base)? {
                    Val::P(Place::Ptr { ptr, .. }) => ptr,
                    _ => return self.unsupported("this texture expression"),
                };
                let coord = self.rvalue(index)?;
                Ok(Val::P(Place::Texel { image, coord, ty, object: base_ty }))
            }
            Family::Texture | Family::Buffer => {
                // `t.mips[level][coord]` / `t.sample[index][coord]`, or `t[coord]` (level
                // or sample 0).
                let (texture, selector) = match self.mips_or_sample(base) {
                    Some((texture, select, mips)) => (texture, Some((select, mips))),
                    None => (base, None),
                };
                // dxc's order: the coordinate, the level or sample, then the image.
                let coord = self.rvalue(index)?;
                let mut ops = ImageOperands::default();
                let ms = kind.shape().is_some_and(|s| s.multisampled);
                match selector {
                    Some((select, mips)) => {
                        let v = self.rvalue(select)?;
                        if mips {
                            ops.lod = Some(v);
                        } else {
                            ops.sample = Some(v);
                        }
                    }
                    None if kind.family() == Family::Buffer => {}
                    None if ms => ops.sample = Some(self.u32_constant(0)),
                    None => ops.lod = Some(self.u32_constant(0)),
                }
                let image = self.object_value(texture)?;
                let image = self.plain_image(image);
                let (t4, s, n) = self.texel4(self.object_element(base_ty))?;
                let v = self.image_instruction("spirv.ImageFetch", vec![image, coord], &ops, t4, None)?;
                let v = self.shrink_texel(v, s, n)?;
                Ok(Val::R(v, ty))
            }
            Family::InputPatch | Family::OutputPatch => self.patch_index(base, index, ty),
            _ => self.unsupported(format!("operator[] of {}", kind.name())),
        }
    }

    /// The 4-component texel type images return, and the element's scalar.
    fn texel4(&mut self, elem: Ty) -> R<(Type, Scalar, u32)> {
        let (s, n) = self.scalar_shape(elem).unwrap_or((Scalar::Float, 4));
        let st = self.ty(self.scalar_ty(s))?;
        let t4 = self.vec_type(st, 4);
        Ok((t4, s, n))
    }

    /// The first `n` components of a 4-vector texel, as the element type.
    fn shrink_texel(&mut self, v: Value, s: Scalar, n: u32) -> R<Value> {
        if n == 4 {
            return Ok(v);
        }
        let st = self.ty(self.scalar_ty(s))?;
        if n == 1 {
            return Ok(self.extract(v, &[0], st));
        }
        let t = self.vec_type(st, n);
        let comps: Vec<u32> = (0..n).collect();
        Ok(self.shuffle(v, v, &comps, t))
    }

    pub fn read_texel(&mut self, image_ptr: Value, coord: Value, ty: Ty, object: Ty) -> R<Value> {
        let image = self.load(image_ptr);
        self.storage_format_capability(image, false);
        let (t4, s, n) = self.texel4(self.object_element(object))?;
        let v = self.image_instruction(
            "spirv.ImageRead",
            vec![image, coord],
            &ImageOperands::default(),
            t4,
            None,
        )?;
        let _ = ty;
        self.shrink_texel(v, s, n)
    }

    pub fn write_texel(&mut self, image_ptr: Value, coord: Value, v: Value, ty: Ty, object: Ty) -> R<()> {
        let image = self.load(image_ptr);
        self.storage_format_capability(image, true);
        let _ = (ty, object);
        // dxc writes the image operand mask even when it is empty.
        let none = prop("image_operands", crate::builder::enum_attr("image_operands", "None"));
        self.effect("spirv.ImageWrite", vec![image, coord, v], vec![none]);
        Ok(())
    }

    /// Methods of textures, buffers and samplers.
    pub(super) fn object_method(
        &mut self,
        name: &str,
        base: ExprId,
        call_expr: ExprId,
        args: &[ExprId],
        call: &CallInfo,
    ) -> R<Value> {
        let base_ty = self.tree.converted_type(base);
        let TypeData::Object { kind, .. } = self.data(base_ty).clone() else {
            return self.unsupported(format!("method '{name}'"));
        };
        let ret = call.ret;
        if let Some(channel) = name.strip_prefix("GatherCmp") {
            // SPIR-V's OpImageDrefGather has no component operand: only red.
            // dxc reports each call and goes on (the code emitted is not used).
            if matches!(channel, "Green" | "Blue" | "Alpha") {
                let span = self.method_name_span(call_expr).or(self.span);
                self.report_error(span, format!("no equivalent for {name} intrinsic method in Vulkan"));
            }
        }
        match (kind.family(), name) {
            (Family::RayQuery, _) => self.ray_query_method(name, base, base_ty, args, call),
            (
                Family::Texture,
                "Sample" | "SampleLevel" | "SampleBias" | "SampleGrad" | "SampleCmp" | "SampleCmpLevelZero"
                | "SampleCmpLevel" | "SampleCmpGrad" | "SampleCmpBias",
            ) => self.sample(name, base, base_ty, args, ret),
            (Family::Texture, m) if m.starts_with("Gather") => self.gather(name, base, base_ty, args),
            (Family::Texture, "CalculateLevelOfDetail" | "CalculateLevelOfDetailUnclamped") => {
                self.level_of_detail(base, base_ty, args, name.ends_with("Unclamped"))
            }
            (Family::Texture, "GetSamplePosition") if kind.shape().is_some_and(|s| s.multisampled) => {
                self.sample_position(base, args)
            }
            (Family::Texture | Family::Buffer, "Load") => self.texture_load(base, base_ty, args, kind),
            (Family::SubpassInput, "SubpassLoad") => self.subpass_load(base, args),
            (Family::RWTexture | Family::RWBuffer, "Load") => {
                let ptr = match self.expr(base)? {
                    Val::P(Place::Ptr { ptr, .. }) => ptr,
                    _ => return self.unsupported("this texture expression"),
                };
                let loc = self.rvalue(self.arg(args, 0)?)?;
                let mut ops = ImageOperands::default();
                let mut next = 1;
                if kind.shape().is_some_and(|s| s.multisampled) {
                    ops.sample = Some(self.rvalue(self.arg(args, 1)?)?);
                    next = 2;
                }
                let image = self.load(ptr);
                self.storage_format_capability(image, false);
                let (t4, s, n) = self.texel4(self.object_element(base_ty))?;
                let v = self.image_instruction(
                    "spirv.ImageRead",
                    vec![image, loc],
                    &ops,
                    t4,
                    args.get(next).copied(),
                )?;
                self.shrink_texel(v, s, n)
            }
            (Family::RWStructuredBuffer, "IncrementCounter" | "DecrementCounter") => {
                let v = self.counter_step(base, name == "IncrementCounter")?;
                let ut = self.u32_type();
                Ok(self.val("spirv.Bitcast", vec![v], ut))
            }
            (Family::AppendBuffer, "Append") => {
                let index = self.counter_step(base, true)?;
                let elem = self.object_element(base_ty);
                let ptr = self.buffer_pointer(base)?;
                let rule = LayoutRule::for_buffer(BufferKind::StructuredBuffer, self.options.layout);
                let et = self.ty_in(elem, Some(rule))?;
                let zero = self.u32_constant(0);
                let p = self.access_chain(ptr, vec![zero, index], et);
                let v = self.rvalue_as(self.arg(args, 0)?, elem)?;
                self.store_place(&Place::Ptr { ptr: p, ty: elem, rule: Some(rule) }, v)?;
                let t = self.void_type();
                Ok(self.undef(t))
            }
            (Family::ConsumeBuffer, "Consume") => {
                let index = self.counter_step(base, false)?;
                let elem = self.object_element(base_ty);
                let ptr = self.buffer_pointer(base)?;
                let rule = LayoutRule::for_buffer(BufferKind::StructuredBuffer, self.options.layout);
                let et = self.ty_in(elem, Some(rule))?;
                let zero = self.u32_constant(0);
                let p = self.access_chain(ptr, vec![zero, index], et);
                self.load_place(&Place::Ptr { ptr: p, ty: elem, rule: Some(rule) })
            }
            (Family::StructuredBuffer | Family::RWStructuredBuffer, "Load") => {
                match self.object_index(base, base_ty, kind, self.arg(args, 0)?, ret)? {
                    Val::P(p) => self.load_place(&p),
                    Val::R(v, _) => Ok(v),
                }
            }
            (Family::ByteAddressBuffer | Family::RWByteAddressBuffer, m) if m.starts_with("Load") => {
                let count = match m {
                    "Load2" => 2,
                    "Load3" => 3,
                    "Load4" => 4,
                    _ => 1,
                };
                let ptr = self.buffer_pointer(base)?;
                let addr = self.rvalue(self.arg(args, 0)?)?;
                let (s, n) = self.scalar_shape(ret).unwrap_or((Scalar::UInt, count));
                // `Load` of a `uint` and `LoadN` read words; `Load` of anything else
                // is `Load<T>`, element by element.
                if m == "Load"
                    && (s != Scalar::UInt
                        || n != 1
                        || self.scalar_shape(ret).is_none()
                        || matches!(self.data(ret), TypeData::Matrix { .. }))
                {
                    return self.load_typed(ptr, &mut RawAddress::Byte(addr), ret, 0);
                }
                let words = self.load_words(ptr, addr, n)?;
                let ut = self.u32_type();
                let uv = if n == 1 {
                    words[0]
                } else {
                    let t = self.vec_type(ut, n);
                    self.construct(words, t)
                };
                let from = self.vector_ty(Scalar::UInt, n);
                if s == Scalar::UInt {
                    return Ok(uv);
                }
                let t = self.ty(ret)?;
                if s == Scalar::Bool {
                    return self.convert(uv, from, ret);
                }
                Ok(self.val("spirv.Bitcast", vec![uv], t))
            }
            (Family::RWByteAddressBuffer, m) if m.starts_with("Store") => {
                let ptr = self.buffer_pointer(base)?;
                let addr = self.rvalue(self.arg(args, 0)?)?;
                let vty = self.tree.converted_type(self.arg(args, 1)?);
                let words = match self.scalar_shape(vty) {
                    // `Store` of a `uint` and `StoreN` write words; `Store` of anything
                    // else is `Store<T>`.
                    Some((s, n))
                        if m != "Store"
                            || (s == Scalar::UInt
                                && n == 1
                                && !matches!(self.data(vty), TypeData::Matrix { .. })) =>
                    {
                        Some((s, n))
                    }
                    Some(_) | None if m == "Store" => None,
                    _ => {
                        return self.unsupported(format!(
                            "{}.Store of '{}'",
                            kind.name(),
                            self.table.display(vty)
                        ))
                    }
                };
                let Some((s, n)) = words else {
                    // Templated: the value first, then the walk of its parts.
                    let v = self.rvalue(self.arg(args, 1)?)?;
                    self.store_typed(ptr, &mut RawAddress::Byte(addr), v, vty, 0)?;
                    let t = self.void_type();
                    return Ok(self.undef(t));
                };
                // dxc computes the word index before it evaluates the value.
                let first = self.raw_word_index(RawAddress::Byte(addr));
                let v = self.rvalue(self.arg(args, 1)?)?;
                let uty = self.vector_ty(Scalar::UInt, n);
                let uv = if s == Scalar::UInt {
                    v
                } else if s == Scalar::Bool {
                    self.convert(v, vty, uty)?
                } else {
                    let t = self.ty(uty)?;
                    self.val("spirv.Bitcast", vec![v], t)
                };
                self.store_words(ptr, first, uv, n);
                let t = self.void_type();
                Ok(self.undef(t))
            }
            (
                Family::ByteAddressBuffer
                | Family::RWByteAddressBuffer
                | Family::StructuredBuffer
                | Family::RWStructuredBuffer
                | Family::AppendBuffer
                | Family::ConsumeBuffer,
                "GetDimensions",
            ) => {
                let ptr = self.buffer_pointer(base)?;
                let ut = self.u32_type();
                let len = self.array_length(ptr);
                let structured =
                    !matches!(kind.family(), Family::ByteAddressBuffer | Family::RWByteAddressBuffer);
                if structured {
                    let out = self.place(self.arg(args, 0)?)?;
                    self.store_place(&out, len)?;
                    if let Some(&a) = args.get(1) {
                        let elem = self.object_element(base_ty);
                        let rule = LayoutRule::for_buffer(BufferKind::StructuredBuffer, self.options.layout);
                        let size = {
                            let c = self.lower.calculator(rule);
                            c.layout(elem)
                        };
                        let size = self.lift(size)?.size;
                        let stride = round_up(size.max(1), stride_align(self, elem, rule));
                        let sv = self.u32_constant(stride);
                        let out = self.place(a)?;
                        self.store_place(&out, sv)?;
                    }
                } else {
                    let four = self.u32_constant(4);
                    let bytes = self.val("spirv.IMul", vec![len, four], ut);
                    let out = self.place(self.arg(args, 0)?)?;
                    self.store_place(&out, bytes)?;
                }
                let t = self.void_type();
                Ok(self.undef(t))
            }
            (Family::RWByteAddressBuffer, m) if m.starts_with("Interlocked") => {
                let ptr = self.buffer_pointer(base)?;
                let addr = self.rvalue(self.arg(args, 0)?)?;
                let ut = self.u32_type();
                let two = self.u32_constant(2);
                let index = self.val("spirv.ShiftRightLogical", vec![addr, two], ut);
                let zero = self.u32_constant(0);
                let p = self.access_chain(ptr, vec![zero, index], ut);
                let place = Place::Ptr { ptr: p, ty: TypeTable::UINT, rule: None };
                self.interlocked(m, place, &args[1..], true)
            }
            (
                Family::RWTexture
                | Family::RWBuffer
                | Family::Texture
                | Family::Buffer
                | Family::SubpassInput,
                "GetDimensions",
            ) => self.texture_dimensions(base, base_ty, args),
            (Family::Stream, _) => self.stream_method(name, base, args),
            _ => self.unsupported(format!("method '{}' of {}", name, kind.name())),
        }
    }

    /// The parts of an aggregate a byte-address access walks: (type, byte offset).
    fn byte_parts(&mut self, ty: Ty) -> R<Vec<(Ty, u32)>> {
        let rule = LayoutRule::for_buffer(BufferKind::StructuredBuffer, self.options.layout);
        match self.data(ty).clone() {
            TypeData::Array { elem, len: Some(n) } => {
                let l = {
                    let c = self.lower.calculator(rule);
                    c.layout(elem)
                };
                let l = self.lift(l)?;
                let stride = round_up(l.size.max(1), l.align);
                Ok((0..n).map(|i| (elem, i * stride)).collect())
            }
            TypeData::Struct(id) => {
                // Merged bit-fields are one member, loaded and stored whole.
                let storage = crate::layout::struct_storage(self.table, id, &self.lower.options());
                let members = self.lift(storage)?.members;
                let offsets = {
                    let c = self.lower.calculator(rule);
                    c.block_offsets(members.clone(), &[])
                };
                let offsets = self.lift(offsets)?;
                Ok(members.into_iter().map(|(t, _)| t).zip(offsets).collect())
            }
            _ => self.unsupported(format!("a byte-address access of '{}'", self.table.display(ty))),
        }
    }

    /// The word index of a raw-buffer address (a byte address shifted right by 2).
    fn raw_word_index(&mut self, addr: RawAddress) -> Value {
        match addr {
            RawAddress::Word(index) => index,
            RawAddress::Byte(byte) => {
                let ut = self.u32_type();
                let two = self.u32_constant(2);
                self.val("spirv.ShiftRightLogical", vec![byte, two], ut)
            }
        }
    }

    /// The byte address of a raw-buffer address (a word index shifted left by 2).
    fn raw_byte_address(&mut self, addr: RawAddress) -> Value {
        match addr {
            RawAddress::Byte(byte) => byte,
            RawAddress::Word(index) => {
                let ut = self.u32_type();
                let two = self.u32_constant(2);
                self.val("spirv.ShiftLeftLogical", vec![index, two], ut)
            }
        }
    }

    fn raw_add(&mut self, v: Value, k: u32) -> Value {
        let ut = self.u32_type();
        let kc = self.u32_constant(k);
        self.val("spirv.IAdd", vec![v, kc], ut)
    }

    /// `Load<T>` of a byte-address buffer as dxc walks it: scalars, vector, array and
    /// matrix elements (column-major) one after another from `addr`, which each
    /// access advances (a 16-bit value: the byte address by 2, read from its word
    /// shifted by `(addr % 4) * 8`; 32-bit: the word index by 1; 64-bit: two words
    /// joined by a bitcast of a `uint2`); a struct's members at its start plus their
    /// offsets, and the struct's end at its start plus its aligned size.
    fn load_typed(&mut self, ptr: Value, addr: &mut RawAddress, ty: Ty, depth: u32) -> R<Value> {
        if depth > 64 {
            return self.unsupported("a byte-address access of a type nested this deeply");
        }
        let t = self.ty(ty)?;
        match self.data(ty).clone() {
            TypeData::Vector(s, n) if n > 1 => {
                let st = self.scalar_ty(s);
                let mut parts = Vec::new();
                for _ in 0..n {
                    parts.push(self.load_typed(ptr, addr, st, depth + 1)?);
                }
                Ok(self.val("spirv.CompositeConstruct", parts, t))
            }
            TypeData::Matrix { elem, rows, cols, .. } => {
                let st = self.scalar_ty(elem);
                let (rows, cols) = (u32::from(rows), u32::from(cols));
                // Stored column-major (dxc's default raw-buffer matrix order).
                let mut elems = Vec::new();
                for _ in 0..rows * cols {
                    elems.push(self.load_typed(ptr, addr, st, depth + 1)?);
                }
                if rows == 1 || cols == 1 {
                    return Ok(if elems.len() == 1 {
                        elems[0]
                    } else {
                        self.val("spirv.CompositeConstruct", elems, t)
                    });
                }
                let row_ty = self.store_row_type(t);
                let mut row_values = Vec::new();
                for i in 0..rows {
                    let row: Vec<Value> = (0..cols).map(|j| elems[(j * rows + i) as usize]).collect();
                    row_values.push(self.val("spirv.CompositeConstruct", row, row_ty));
                }
                Ok(self.val("spirv.CompositeConstruct", row_values, t))
            }
            TypeData::Array { elem, len: Some(n) } => {
                let mut parts = Vec::new();
                for _ in 0..n {
                    parts.push(self.load_typed(ptr, addr, elem, depth + 1)?);
                }
                Ok(self.val("spirv.CompositeConstruct", parts, t))
            }
            TypeData::Struct(_) => {
                let base = self.raw_byte_address(*addr);
                let mut values = Vec::new();
                for (pt, off) in self.byte_parts(ty)? {
                    let start = if off == 0 { base } else { self.raw_add(base, off) };
                    let mut member = RawAddress::Byte(start);
                    values.push(self.load_typed(ptr, &mut member, pt, depth + 1)?);
                }
                let end = self.raw_struct_size(ty)?;
                *addr = RawAddress::Byte(self.raw_add(base, end));
                Ok(self.val("spirv.CompositeConstruct", values, t))
            }
            _ => match self.scalar_shape(ty) {
                Some((s, 1)) => self.load_scalar(ptr, addr, s),
                _ => self.unsupported(format!("a byte-address access of '{}'", self.table.display(ty))),
            },
        }
    }

    /// A struct's size in a raw buffer rounded up to its alignment (where the next
    /// element of an array of it starts).
    fn raw_struct_size(&mut self, ty: Ty) -> R<u32> {
        let rule = LayoutRule::for_buffer(BufferKind::StructuredBuffer, self.options.layout);
        let l = {
            let c = self.lower.calculator(rule);
            c.layout(ty)
        };
        let l = self.lift(l)?;
        Ok(round_up(l.size, l.align.max(1)))
    }

    fn load_scalar(&mut self, ptr: Value, addr: &mut RawAddress, s: Scalar) -> R<Value> {
        let t = self.ty(self.scalar_ty(s))?;
        let ut = self.u32_type();
        let zero = self.u32_constant(0);
        let raw = match s.bits(self.options.lower.sixteen_bit_types) {
            16 => {
                let byte = self.raw_byte_address(*addr);
                let index = self.raw_word_index(RawAddress::Byte(byte));
                let four = self.u32_constant(4);
                let three = self.u32_constant(3);
                let in_word = self.val("spirv.UMod", vec![byte, four], ut);
                let shift = self.val("spirv.ShiftLeftLogical", vec![in_word, three], ut);
                let p = self.access_chain(ptr, vec![zero, index], ut);
                let word = self.load(p);
                let w = self.val("spirv.ShiftRightLogical", vec![word, shift], ut);
                let u16t = self.ty(self.scalar_ty(Scalar::UInt16))?;
                let half = self.val("spirv.UConvert", vec![w], u16t);
                *addr = RawAddress::Byte(self.raw_add(byte, 2));
                half
            }
            64 => {
                let index = self.raw_word_index(*addr);
                let p = self.access_chain(ptr, vec![zero, index], ut);
                let word0 = self.load(p);
                let next = self.raw_add(index, 1);
                let p = self.access_chain(ptr, vec![zero, next], ut);
                let word1 = self.load(p);
                *addr = RawAddress::Word(self.raw_add(next, 1));
                let v2 = self.vec_type(ut, 2);
                self.val("spirv.CompositeConstruct", vec![word0, word1], v2)
            }
            _ => {
                let index = self.raw_word_index(*addr);
                let p = self.access_chain(ptr, vec![zero, index], ut);
                let word = self.load(p);
                let value = if s == Scalar::Bool {
                    self.val("spirv.INotEqual", vec![word, zero], t)
                } else if s == Scalar::UInt {
                    word
                } else {
                    self.val("spirv.Bitcast", vec![word], t)
                };
                *addr = RawAddress::Word(self.raw_add(index, 1));
                return Ok(value);
            }
        };
        if self.ir.value_type(raw) == t {
            return Ok(raw);
        }
        Ok(self.val("spirv.Bitcast", vec![raw], t))
    }

    /// `Store<T>` of a byte-address buffer, walking `addr` as [`Self::load_typed`].
    fn store_typed(&mut self, ptr: Value, addr: &mut RawAddress, v: Value, ty: Ty, depth: u32) -> R<()> {
        if depth > 64 {
            return self.unsupported("a byte-address access of a type nested this deeply");
        }
        match self.data(ty).clone() {
            TypeData::Vector(s, n) if n > 1 => {
                let st = self.scalar_ty(s);
                let et = self.ty(st)?;
                for i in 0..u32::from(n) {
                    let c = self.extract(v, &[i], et);
                    self.store_typed(ptr, addr, c, st, depth + 1)?;
                }
                Ok(())
            }
            TypeData::Matrix { elem, rows, cols, .. } => {
                let st = self.scalar_ty(elem);
                let et = self.ty(st)?;
                let (rows, cols) = (u32::from(rows), u32::from(cols));
                // Column-major, as loads read it.
                for j in 0..cols {
                    for i in 0..rows {
                        let path = if rows == 1 || cols == 1 { vec![i * cols + j] } else { vec![i, j] };
                        let c = if rows * cols == 1 { v } else { self.extract(v, &path, et) };
                        self.store_typed(ptr, addr, c, st, depth + 1)?;
                    }
                }
                Ok(())
            }
            TypeData::Array { elem, len: Some(n) } => {
                let et = self.ty(elem)?;
                for i in 0..n {
                    let c = self.extract(v, &[i], et);
                    self.store_typed(ptr, addr, c, elem, depth + 1)?;
                }
                Ok(())
            }
            TypeData::Struct(_) => {
                let base = self.raw_byte_address(*addr);
                for (i, (pt, off)) in self.byte_parts(ty)?.into_iter().enumerate() {
                    let pty = self.ty(pt)?;
                    let c = self.extract(v, &[i as u32], pty);
                    let start = if off == 0 { base } else { self.raw_add(base, off) };
                    let mut member = RawAddress::Byte(start);
                    self.store_typed(ptr, &mut member, c, pt, depth + 1)?;
                }
                let end = self.raw_struct_size(ty)?;
                *addr = RawAddress::Byte(self.raw_add(base, end));
                Ok(())
            }
            _ => match self.scalar_shape(ty) {
                Some((s, 1)) => self.store_scalar(ptr, addr, v, s),
                _ => self.unsupported(format!("a byte-address access of '{}'", self.table.display(ty))),
            },
        }
    }

    fn store_scalar(&mut self, ptr: Value, addr: &mut RawAddress, v: Value, s: Scalar) -> R<()> {
        let ut = self.u32_type();
        let zero = self.u32_constant(0);
        match s.bits(self.options.lower.sixteen_bit_types) {
            16 => {
                // A read-modify-write of the word holding the half word.
                let byte = self.raw_byte_address(*addr);
                let u16t = self.ty(self.scalar_ty(Scalar::UInt16))?;
                let raw = if s == Scalar::UInt16 { v } else { self.val("spirv.Bitcast", vec![v], u16t) };
                let w = self.val("spirv.UConvert", vec![raw], ut);
                let index = self.raw_word_index(RawAddress::Byte(byte));
                let four = self.u32_constant(4);
                let three = self.u32_constant(3);
                let in_word = self.val("spirv.UMod", vec![byte, four], ut);
                let shift = self.val("spirv.ShiftLeftLogical", vec![in_word, three], ut);
                let shifted = self.val("spirv.ShiftLeftLogical", vec![w, shift], ut);
                let mask16 = self.u32_constant(0xffff);
                let mask = self.val("spirv.ShiftLeftLogical", vec![mask16, shift], ut);
                let keep = self.val("spirv.Not", vec![mask], ut);
                let p = self.access_chain(ptr, vec![zero, index], ut);
                let old = self.load(p);
                let kept = self.val("spirv.BitwiseAnd", vec![old, keep], ut);
                let new = self.val("spirv.BitwiseOr", vec![kept, shifted], ut);
                self.store_to(p, new);
                *addr = RawAddress::Byte(self.raw_add(byte, 2));
            }
            64 => {
                // dxc: the value bitcast to two words, stored one after the other.
                let v2 = self.vec_type(ut, 2);
                let words = self.val("spirv.Bitcast", vec![v], v2);
                let word0 = self.extract(words, &[0], ut);
                let word1 = self.extract(words, &[1], ut);
                let index = self.raw_word_index(*addr);
                let p = self.access_chain(ptr, vec![zero, index], ut);
                self.store_to(p, word0);
                let next = self.raw_add(index, 1);
                let p = self.access_chain(ptr, vec![zero, next], ut);
                self.store_to(p, word1);
                *addr = RawAddress::Word(self.raw_add(next, 1));
            }
            _ if s == Scalar::Bool => {
                // The word's address first, then the bool as 0 or 1 (dxc's order).
                let index = self.raw_word_index(*addr);
                let p = self.access_chain(ptr, vec![zero, index], ut);
                let one = self.u32_constant(1);
                let w = self.val("spirv.Select", vec![v, one, zero], ut);
                self.store_to(p, w);
                *addr = RawAddress::Word(self.raw_add(index, 1));
            }
            _ => {
                let w = if s == Scalar::UInt { v } else { self.val("spirv.Bitcast", vec![v], ut) };
                let index = self.raw_word_index(*addr);
                let p = self.access_chain(ptr, vec![zero, index], ut);
                self.store_to(p, w);
                *addr = RawAddress::Word(self.raw_add(index, 1));
            }
        }
        Ok(())
    }

    fn array_length(&mut self, ptr: Value) -> Value {
        let ut = self.u32_type();
        // OpArrayLength of the block's member 0 (the dialect lacks the op).
        self.fallback_val("spirv.ArrayLength", &[Opnd::Id(ptr), Opnd::Lit(0)], ut)
    }

    fn load_words(&mut self, ptr: Value, addr: Value, n: u32) -> R<Vec<Value>> {
        let ut = self.u32_type();
        let two = self.u32_constant(2);
        let first = self.val("spirv.ShiftRightLogical", vec![addr, two], ut);
        let zero = self.u32_constant(0);
        let mut out = Vec::new();
        for k in 0..n {
            let index = if k == 0 {
                first
            } else {
                let kc = self.u32_constant(k);
                self.val("spirv.IAdd", vec![first, kc], ut)
            };
            let p = self.access_chain(ptr, vec![zero, index], ut);
            out.push(self.load(p));
        }
        Ok(out)
    }

    /// Stores the `n` words of `v` from word `first` on: each word extracted, its
    /// index computed, then stored (dxc's order).
    fn store_words(&mut self, ptr: Value, first: Value, v: Value, n: u32) {
        let ut = self.u32_type();
        let zero = self.u32_constant(0);
        for k in 0..n {
            let w = if n == 1 { v } else { self.extract(v, &[k], ut) };
            let index = if k == 0 { first } else { self.raw_add(first, k) };
            let p = self.access_chain(ptr, vec![zero, index], ut);
            self.store_to(p, w);
        }
    }

    /// The sampled image of a sampling method, with the method's arguments after the
    /// sampler: a `SampledTexture*` is its own sampled image; the others load the
    /// image and the sampler (first argument), evaluate the remaining arguments
    /// (`rest`, as dxc does before `OpSampledImage`) and combine them.
    fn sampled_image_and_args(
        &mut self,
        base: ExprId,
        base_ty: Ty,
        args: &[ExprId],
    ) -> R<(Value, Vec<ExprId>, PendingSampler)> {
        let combined =
            matches!(self.data(base_ty), TypeData::Object { kind, .. } if kind.name().starts_with("Sampled"));
        let image = self.object_value(base)?;
        if combined {
            return Ok((image, args.to_vec(), None));
        }
        let sampler = self.object_value(self.arg(args, 0)?)?;
        Ok((image, args[1..].to_vec(), Some((image, sampler))))
    }

    fn combine(&mut self, si: Value, pending: PendingSampler) -> Value {
        match pending {
            Some((image, sampler)) => {
                let image_ty = self.ir.value_type(image);
                let sit = self.sampled_image_type(image_ty);
                self.fallback_val("spirv.SampledImage", &[Opnd::Id(image), Opnd::Id(sampler)], sit)
            }
            None => si,
        }
    }

    /// An offset operand: `ConstOffset` when it is a constant, else `Offset` (which
    /// needs `ImageGatherExtended`, and legalization to make it constant for Vulkan).
    fn offset_operand(&mut self, e: ExprId, ops: &mut ImageOperands) -> R<()> {
        let v = self.rvalue(e)?;
        match self.as_constant(v) {
            Some(c) => {
                // A conversion folded into the constant is not emitted (dxc folds it
                // in the front end); nothing else uses the fresh value.
                if let Some(op) = self.def_op(v).filter(|&op| self.ir.op(op).name == "spirv.Bitcast") {
                    self.ir.erase_op(op);
                }
                ops.const_offset = Some(self.signed_offset(c))
            }
            None => {
                self.require("ImageGatherExtended", None);
                ops.offset = Some(v);
            }
        }
        Ok(())
    }

    /// A constant offset of unsigned integers as the signed one the method takes
    /// (`uint2(-5, 7)` is `int2(-5, 7)`, which dxc folds).
    fn signed_offset(&mut self, c: Value) -> Value {
        let ty = self.ir.value_type(c);
        let (element, count) = match self.lower.store().kind(ty).clone() {
            TypeKind::Vector { element, shape, .. } => (element, shape.first().copied().unwrap_or(1)),
            _ => (ty, 1),
        };
        if element != self.u32_type() {
            return c;
        }
        let signed = self.i32_type();
        let wrap = |a: &Attribute| match a {
            Attribute::Integer { value, .. } => {
                Some(Attribute::Integer { value: i128::from(*value as u32 as i32), ty: signed })
            }
            _ => None,
        };
        let target = if count > 1 { self.vec_type(signed, count as u32) } else { signed };
        let attr = match self.constant_attr_of(c) {
            Some(a @ Attribute::Integer { .. }) => wrap(&a),
            Some(Attribute::Dense { elements, .. }) => elements
                .iter()
                .map(wrap)
                .collect::<Option<Vec<_>>>()
                .map(|elements| Attribute::Dense { elements, ty: target }),
            _ => None,
        };
        match attr {
            Some(a) => self.constant_attr(a, target),
            None => c,
        }
    }

    /// `v` as a constant: itself when it is one, or a constant composite of a
    /// construct of constants.
    fn as_constant(&mut self, v: Value) -> Option<Value> {
        let attr = self.constant_attr_of(v)?;
        if matches!(attr, Attribute::Dense { .. } | Attribute::Integer { .. } | Attribute::Float { .. })
            && self.def_op(v).is_some_and(|op| self.ir.op(op).name == "spirv.Constant")
        {
            return Some(v);
        }
        let ty = self.ir.value_type(v);
        Some(self.constant_attr(attr, ty))
    }

    pub(super) fn def_op(&self, v: Value) -> Option<spirvkit_ir::OpId> {
        match self.ir.value(v).def {
            spirvkit_ir::ir::ValueDef::Result { op, .. } => Some(op),
            spirvkit_ir::ir::ValueDef::Argument { .. } => None,
        }
    }

    fn constant_attr_of(&self, v: Value) -> Option<Attribute> {
        let op = self.def_op(v)?;
        let o = self.ir.op(op);
        if o.name == "spirv.Constant" {
            return o.attr("value").cloned();
        }
        if o.name == "spirv.CompositeConstruct" {
            let ty = self.ir.value_type(v);
            let mut elements = Vec::new();
            for &x in &o.operands {
                match self.constant_attr_of(x)? {
                    a @ (Attribute::Integer { .. } | Attribute::Float { .. } | Attribute::Bool(_)) => {
                        elements.push(a)
                    }
                    _ => return None,
                }
            }
            return Some(Attribute::Dense { elements, ty });
        }
        // A bitcast between integers of one width (an implicit `uint2` to `int2` of a
        // constant offset, which dxc folds).
        if o.name == "spirv.Bitcast" {
            let ty = self.ir.value_type(v);
            let element = match self.lower.store().kind(ty) {
                TypeKind::Vector { element, .. } => *element,
                _ => ty,
            };
            let operand_t = self.ir.value_type(*o.operands.first()?);
            let shape_and_width = |t: Type| {
                let (e, n) = match self.lower.store().kind(t) {
                    TypeKind::Vector { element, shape, .. } => {
                        (*element, shape.first().copied().unwrap_or(1))
                    }
                    _ => (t, 1),
                };
                match self.lower.store().kind(e) {
                    TypeKind::Integer { width, .. } => Some((*width, n)),
                    _ => None,
                }
            };
            if shape_and_width(ty).is_none() || shape_and_width(ty) != shape_and_width(operand_t) {
                return None;
            }
            let retype = |a: &Attribute| match a {
                Attribute::Integer { value, .. } => Some(Attribute::Integer {
                    value: self.lower.store().normalize_integer(*value, element),
                    ty: element,
                }),
                _ => None,
            };
            return match self.constant_attr_of(*o.operands.first()?)? {
                a @ Attribute::Integer { .. } => retype(&a),
                Attribute::Dense { elements, .. } => {
                    let elements = elements.iter().map(retype).collect::<Option<Vec<_>>>()?;
                    Some(Attribute::Dense { elements, ty })
                }
                _ => None,
            };
        }
        // A component or a shuffle of a constant vector (an implicit truncation of a
        // constant offset, which dxc folds).
        if matches!(o.name.as_str(), "spirv.CompositeExtract" | "spirv.VectorShuffle") {
            let picks: Vec<usize> =
                match o.attr(if o.name == "spirv.CompositeExtract" { "indices" } else { "components" })? {
                    Attribute::Array(a) => a
                        .iter()
                        .map(|x| match x {
                            Attribute::Integer { value, .. } => usize::try_from(*value).ok(),
                            _ => None,
                        })
                        .collect::<Option<_>>()?,
                    _ => return None,
                };
            let Attribute::Dense { elements, .. } = self.constant_attr_of(*o.operands.first()?)? else {
                return None;
            };
            let element = |i: usize| {
                if elements.len() == 1 {
                    elements.first().cloned()
                } else {
                    elements.get(i).cloned()
                }
            };
            let ty = self.ir.value_type(v);
            if o.name == "spirv.CompositeExtract" {
                return match picks.as_slice() {
                    [i] => element(*i),
                    _ => None,
                };
            }
            // A shuffle of the constant with itself.
            if o.operands.first() != o.operands.get(1) {
                return None;
            }
            let elements = picks.into_iter().map(element).collect::<Option<Vec<_>>>()?;
            return Some(Attribute::Dense { elements, ty });
        }
        None
    }

    /// dxc's `SparseResidencyStruct` of a texel type: `{ uint, texel }`.
    fn sparse_struct(&mut self, texel: Type) -> Type {
        if let Some(&t) = self.resources.sparse_structs.get(&texel) {
            return t;
        }
        let ut = self.u32_type();
        let body = StructBody {
            members: vec![
                StructMember { ty: ut, offset: None, decorations: Vec::new() },
                StructMember { ty: texel, offset: None, decorations: Vec::new() },
            ],
            decorations: Vec::new(),
        };
        let t = self.identified_struct("SparseResidencyStruct", body);
        self.resources.sparse_structs.insert(texel, t);
        t
    }

    /// An image instruction with its image operands; with `status`, its sparse form
    /// whose residency code goes to `status` and whose texel is returned.
    fn image_instruction(
        &mut self,
        name: &str,
        base: Vec<Value>,
        ops: &ImageOperands,
        texel: Type,
        status: Option<ExprId>,
    ) -> R<Value> {
        let (mask, mut names, values) = ops.encode();
        // dxc writes the mask even when it is empty (`None`).
        if names.is_empty() {
            names.push("None");
        }
        // `MinLod` and `SparseResidency` come from the instructions themselves (the
        // driver adds what the written words need), so dead code leaves none behind.
        if let Some(st) = status {
            let sparse = format!("spirv.ImageSparse{}", name.trim_start_matches("spirv.Image"));
            let rt = self.sparse_struct(texel);
            let mut items: Vec<Opnd> = base.iter().map(|&v| Opnd::Id(v)).collect();
            items.push(Opnd::Lit(mask));
            items.extend(values.iter().map(|&v| Opnd::Id(v)));
            let r = self.fallback_val(&sparse, &items, rt);
            let ut = self.u32_type();
            let code = self.extract(r, &[0], ut);
            let place = self.place(st)?;
            let pty = place.ty();
            let code = self.convert(code, TypeTable::UINT, pty)?;
            self.store_place(&place, code)?;
            return Ok(self.extract(r, &[1], texel));
        }
        let modelled = matches!(
            name,
            "spirv.ImageSampleImplicitLod"
                | "spirv.ImageSampleExplicitLod"
                | "spirv.ImageFetch"
                | "spirv.ImageRead"
                | "spirv.ImageDrefGather"
        );
        if modelled {
            let mut operands = base;
            operands.extend(values);
            let props = if names.is_empty() {
                Vec::new()
            } else {
                vec![prop("image_operands", crate::builder::enum_attr("image_operands", &names.join("|")))]
            };
            return Ok(self.val_props(name, operands, texel, props));
        }
        let mut items: Vec<Opnd> = base.iter().map(|&v| Opnd::Id(v)).collect();
        {
            items.push(Opnd::Lit(mask));
            items.extend(values.iter().map(|&v| Opnd::Id(v)));
        }
        Ok(self.fallback_val(name, &items, texel))
    }

    /// `Sample*` methods of textures.
    fn sample(&mut self, name: &str, base: ExprId, base_ty: Ty, all_args: &[ExprId], ret: Ty) -> R<Value> {
        let TypeData::Object { kind, .. } = self.data(base_ty).clone() else {
            return self.unsupported(format!("method '{name}'"));
        };
        let cube = kind.shape().is_some_and(|s| s.cube);
        if matches!(name, "Sample" | "SampleBias" | "SampleCmp" | "SampleCmpBias") {
            self.check_implicit_lod_stage();
        }
        let (si, args, pending) = self.sampled_image_and_args(base, base_ty, all_args)?;
        let coord = self.rvalue(self.arg(&args, 0)?)?;
        let mut ops = ImageOperands::default();
        let mut dref = None;
        let mut next = 1;
        let take = |e: &mut Self, next: &mut usize| -> R<Value> {
            let a = e.arg(&args, *next)?;
            *next += 1;
            e.rvalue(a)
        };
        let (op, clamp_allowed) = match name {
            "Sample" => ("ImplicitLod", true),
            "SampleBias" => {
                ops.bias = Some(take(self, &mut next)?);
                ("ImplicitLod", true)
            }
            "SampleLevel" => {
                ops.lod = Some(take(self, &mut next)?);
                ("ExplicitLod", false)
            }
            "SampleGrad" => {
                let dx = take(self, &mut next)?;
                let dy = take(self, &mut next)?;
                ops.grad = Some((dx, dy));
                ("ExplicitLod", true)
            }
            "SampleCmp" => {
                dref = Some(take(self, &mut next)?);
                ("DrefImplicitLod", true)
            }
            "SampleCmpBias" => {
                dref = Some(take(self, &mut next)?);
                ops.bias = Some(take(self, &mut next)?);
                ("DrefImplicitLod", true)
            }
            "SampleCmpLevelZero" => {
                dref = Some(take(self, &mut next)?);
                let ft = self.f32_type();
                ops.lod = Some(self.scalar_constant(ConstValue::Float(0.0), ft));
                ("DrefExplicitLod", false)
            }
            "SampleCmpLevel" => {
                dref = Some(take(self, &mut next)?);
                ops.lod = Some(take(self, &mut next)?);
                ("DrefExplicitLod", false)
            }
            "SampleCmpGrad" => {
                dref = Some(take(self, &mut next)?);
                let dx = take(self, &mut next)?;
                let dy = take(self, &mut next)?;
                ops.grad = Some((dx, dy));
                ("DrefExplicitLod", true)
            }
            _ => return self.unsupported(format!("method '{name}' of {}", kind.name())),
        };
        if !cube {
            if let Some(&o) = args.get(next) {
                self.offset_operand(o, &mut ops)?;
                next += 1;
            }
        }
        if clamp_allowed {
            if let Some(&c) = args.get(next) {
                ops.min_lod = Some(self.rvalue(c)?);
                next += 1;
            }
        }
        let status = args.get(next).copied();
        let si = self.combine(si, pending);
        let (t4, s, n) = self.texel4(self.object_element(base_ty))?;
        let mut base_ops = vec![si, coord];
        let texel = match dref {
            Some(d) => {
                base_ops.push(d);
                self.ty(self.scalar_ty(s))?
            }
            None => t4,
        };
        if op.ends_with("ImplicitLod") {
            self.implicit_lod_used();
        }
        let v = self.image_instruction(&format!("spirv.ImageSample{op}"), base_ops, &ops, texel, status)?;
        let _ = ret;
        if dref.is_some() {
            return Ok(v);
        }
        self.shrink_texel(v, s, n)
    }

    /// An implicit-lod instruction or a derivative in a compute, mesh or amplification
    /// shader takes derivatives over groups of
    /// invocations: quads when the group's x and y are even, else lines (dxc's rule).
    pub(crate) fn implicit_lod_used(&mut self) {
        let Some(entry) = &self.entry else { return };
        use spirvkit_hlsl::sema::tree::Stage;
        if !matches!(entry.stage, Stage::Compute | Stage::Mesh | Stage::Amplification)
            || self.resources.derivative_group_set
        {
            return;
        }
        self.resources.derivative_group_set = true;
        let [x, y, _] = entry.numthreads.unwrap_or([1, 1, 1]);
        let quads = x % 2 == 0 && y % 2 == 0;
        let extension = self.compute_derivatives_extension();
        // The dialect spells them NV (the values of the KHR names).
        let (capability, mode) = if quads {
            ("ComputeDerivativeGroupQuadsNV", "DerivativeGroupQuadsNV")
        } else {
            ("ComputeDerivativeGroupLinearNV", "DerivativeGroupLinearNV")
        };
        self.require(capability, Some(extension));
        self.execution_modes.push((mode.to_string(), Vec::new()));
    }

    /// The extension of compute-shader derivatives: the KHR one when `-fspv-extension`
    /// permits it and not the NV one (as dxc picks what the user allows), else the NV
    /// one: spirv-val (2025.5) does not accept these capabilities with the KHR one on
    /// Vulkan 1.0, and an invalid binary is worse than a name. The words of the
    /// capabilities and modes are the same under both names.
    pub(crate) fn compute_derivatives_extension(&self) -> &'static str {
        const KHR: &str = "SPV_KHR_compute_shader_derivatives";
        const NV: &str = "SPV_NV_compute_shader_derivatives";
        let allowed = &self.options.allowed_extensions;
        let permits =
            |ext: &str| allowed.iter().any(|a| a == ext || (a == "KHR" && ext.starts_with("SPV_KHR_")));
        if !allowed.is_empty() && permits(KHR) && !permits(NV) {
            KHR
        } else {
            NV
        }
    }

    /// `Gather*` methods: `OpImageGather` of a component, `OpImageDrefGather` for the
    /// comparisons; one offset, or four (`ConstOffsets`).
    fn gather(&mut self, name: &str, base: ExprId, base_ty: Ty, all_args: &[ExprId]) -> R<Value> {
        let TypeData::Object { kind, .. } = self.data(base_ty).clone() else {
            return self.unsupported(format!("method '{name}'"));
        };
        let cube = kind.shape().is_some_and(|s| s.cube);
        let (cmp, channel) = match name.strip_prefix("GatherCmp") {
            Some(c) => (true, c),
            None => (false, name.trim_start_matches("Gather")),
        };
        let component = match channel {
            "" | "Red" => 0,
            "Green" => 1,
            "Blue" => 2,
            "Alpha" => 3,
            _ => return self.unsupported(format!("method '{name}'")),
        };
        // GatherCmpGreen/Blue/Alpha: reported by `object_method`; OpImageDrefGather
        // takes no component, so the code below is that of GatherCmpRed.
        let (si, args, pending) = self.sampled_image_and_args(base, base_ty, all_args)?;
        let coord = self.rvalue(self.arg(&args, 0)?)?;
        let mut next = 1;
        let dref = if cmp {
            next += 1;
            Some(self.rvalue(self.arg(&args, 1)?)?)
        } else {
            None
        };
        let mut ops = ImageOperands::default();
        let remaining = args.len().saturating_sub(next);
        if !cube && remaining >= 4 {
            let mut offsets = Vec::new();
            let mut attrs = Vec::new();
            for k in 0..4 {
                let v = self.rvalue(args[next + k])?;
                offsets.push(v);
                match self.constant_attr_of(v) {
                    Some(a) => attrs.push(a),
                    None => {
                        let rest: Vec<ExprId> = args[next + k + 1..next + 4].to_vec();
                        if args.len() > next + 4 {
                            return self.unsupported(format!(
                                "{name} with four offsets that are not constant and a status"
                            ));
                        }
                        let si = self.combine(si, pending);
                        return self.gather_per_offset(si, coord, dref, component, base_ty, offsets, &rest);
                    }
                }
            }
            next += 4;
            let vt = self.ir.value_type(offsets[0]);
            let at = self.store().array(vt, 4, None);
            ops.const_offsets = Some(self.constant_attr(Attribute::Array(attrs), at));
            self.require("ImageGatherExtended", None);
        } else if !cube && remaining >= 1 {
            let o = args[next];
            next += 1;
            self.offset_operand(o, &mut ops)?;
            self.require("ImageGatherExtended", None);
        }
        let status = args.get(next).copied();
        let si = self.combine(si, pending);
        let (t4, _, _) = self.texel4(self.object_element(base_ty))?;
        match dref {
            Some(d) => self.image_instruction("spirv.ImageDrefGather", vec![si, coord, d], &ops, t4, status),
            None => {
                let c = self.i32_constant(component);
                self.image_instruction("spirv.ImageGather", vec![si, coord, c], &ops, t4, status)
            }
        }
    }

    /// A gather with four offsets that are not all constant, as dxc makes it: one
    /// gather per offset (each an `Offset` operand, evaluated in turn), keeping texel
    /// k of gather k. `offsets` holds the values evaluated so far, `rest` the
    /// expressions of the others.
    #[allow(clippy::too_many_arguments)]
    fn gather_per_offset(
        &mut self,
        si: Value,
        coord: Value,
        dref: Option<Value>,
        component: i32,
        base_ty: Ty,
        mut offsets: Vec<Value>,
        rest: &[ExprId],
    ) -> R<Value> {
        self.require("ImageGatherExtended", None);
        let (t4, s, _) = self.texel4(self.object_element(base_ty))?;
        let st = self.ty(self.scalar_ty(s))?;
        let mut texels = Vec::new();
        let mut pending = rest.iter();
        for k in 0..4u32 {
            let offset = match offsets.get(k as usize) {
                Some(&v) => v,
                None => {
                    let Some(&e) = pending.next() else { return self.unsupported("this gather") };
                    let v = self.rvalue(e)?;
                    offsets.push(v);
                    v
                }
            };
            let offset = self.as_constant(offset).unwrap_or(offset);
            let ops = ImageOperands { offset: Some(offset), ..ImageOperands::default() };
            let gathered = match dref {
                Some(d) => {
                    self.image_instruction("spirv.ImageDrefGather", vec![si, coord, d], &ops, t4, None)?
                }
                None => {
                    let c = self.i32_constant(component);
                    self.image_instruction("spirv.ImageGather", vec![si, coord, c], &ops, t4, None)?
                }
            };
            texels.push(self.extract(gathered, &[k], st));
        }
        Ok(self.construct(texels, t4))
    }

    /// The image of a texture value (`OpImage` of a `SampledTexture*`).
    fn plain_image(&mut self, v: Value) -> Value {
        let ty = self.ir.value_type(v);
        if let TypeKind::SampledImage(image) = self.lower.store().kind(ty).clone() {
            return self.val("spirv.Image", vec![v], image);
        }
        v
    }

    /// `Load` of a texture or typed buffer: `OpImageFetch` with the mip level (the last
    /// coordinate) or the sample index, an offset and a status.
    fn texture_load(&mut self, base: ExprId, base_ty: Ty, args: &[ExprId], kind: ObjectKind) -> R<Value> {
        // dxc evaluates (and splits) the location before loading the image.
        let loc = self.rvalue(self.arg(args, 0)?)?;
        let loc_ty = self.tree.converted_type(self.arg(args, 0)?);
        let mut ops = ImageOperands::default();
        let mut next = 1;
        let coord = if kind.family() == Family::Buffer {
            loc
        } else if kind.shape().is_some_and(|s| s.multisampled) {
            ops.sample = Some(self.rvalue(self.arg(args, 1)?)?);
            next = 2;
            loc
        } else {
            // The last coordinate is the mip level.
            let (s, n) = self.scalar_shape(loc_ty).unwrap_or((Scalar::Int, 3));
            if n < 2 {
                return self.unsupported("Load with a scalar location");
            }
            let st = self.ty(self.scalar_ty(s))?;
            let ct = self.vec_type(st, n - 1);
            let comps: Vec<u32> = (0..n - 1).collect();
            let coord =
                if n - 1 == 1 { self.extract(loc, &[0], st) } else { self.shuffle(loc, loc, &comps, ct) };
            ops.lod = Some(self.extract(loc, &[n - 1], st));
            coord
        };
        if kind.family() != Family::Buffer {
            if let Some(&o) = args.get(next) {
                self.offset_operand(o, &mut ops)?;
                next += 1;
            }
        }
        let status = args.get(next).copied();
        let image = self.object_value(base)?;
        let image = self.plain_image(image);
        let (t4, s, n) = self.texel4(self.object_element(base_ty))?;
        let v = self.image_instruction("spirv.ImageFetch", vec![image, coord], &ops, t4, status)?;
        self.shrink_texel(v, s, n)
    }

    /// `t.mips[level][coord]` and `t.sample[index][coord]`: the selector expression
    /// `t.mips[level]` and what it selects.
    fn mips_or_sample(&self, e: ExprId) -> Option<(ExprId, ExprId, bool)> {
        let info = self.tree.expr(e)?;
        let m = match info.resolution {
            spirvkit_hlsl::sema::tree::Resolution::BuiltinMember("mips[]") => true,
            spirvkit_hlsl::sema::tree::Resolution::BuiltinMember("sample[]") => false,
            _ => return None,
        };
        let ExprKind::Index { base, index } = &self.ast.expr(e).kind else { return None };
        let ExprKind::Member { base: texture, .. } = &self.ast.expr(*base).kind else { return None };
        Some((*texture, *index, m))
    }

    /// `CalculateLevelOfDetail(Unclamped)`: `OpImageQueryLod`'s first or second component.
    fn level_of_detail(&mut self, base: ExprId, base_ty: Ty, args: &[ExprId], unclamped: bool) -> R<Value> {
        let (si, args, pending) = self.sampled_image_and_args(base, base_ty, args)?;
        let coord = self.rvalue(self.arg(&args, 0)?)?;
        let si = self.combine(si, pending);
        let ft = self.f32_type();
        let v2 = self.vec_type(ft, 2);
        self.implicit_lod_used();
        let q = self.fallback_val("spirv.ImageQueryLod", &[Opnd::Id(si), Opnd::Id(coord)], v2);
        Ok(self.extract(q, &[u32::from(unclamped)], ft))
    }

    /// `GetSamplePosition(index)` of a multisampled texture: SPIR-V has no query for it,
    /// so, as dxc, the standard positions of 2, 4, 8 and 16 samples are selected by
    /// the texture's sample count (`(0, 0)` for any other count).
    fn sample_position(&mut self, base: ExprId, args: &[ExprId]) -> R<Value> {
        const POSITIONS: [&[(f64, f64)]; 4] = [
            &[(4.0, 4.0), (-4.0, -4.0)],
            &[(-2.0, -6.0), (6.0, -2.0), (-6.0, 2.0), (2.0, 6.0)],
            &[
                (1.0, -3.0),
                (-1.0, 3.0),
                (5.0, 1.0),
                (-3.0, -5.0),
                (-5.0, 5.0),
                (-7.0, -1.0),
                (3.0, 7.0),
                (7.0, -7.0),
            ],
            &[
                (1.0, 1.0),
                (-1.0, -3.0),
                (-3.0, 2.0),
                (4.0, -1.0),
                (-5.0, -2.0),
                (2.0, 5.0),
                (5.0, 3.0),
                (3.0, -5.0),
                (-2.0, 6.0),
                (0.0, -7.0),
                (-4.0, -6.0),
                (-6.0, 4.0),
                (-8.0, 0.0),
                (7.0, -4.0),
                (6.0, 7.0),
                (-7.0, -8.0),
            ],
        ];
        let ft = self.f32_type();
        let v2 = self.vec_type(ft, 2);
        let ut = self.u32_type();
        let bt = self.bool_type();
        let mut tables = Vec::new();
        for table in POSITIONS {
            let at = self.store().array(v2, table.len() as u32, None);
            let var = self.function_variable(at, &format!("var.GetSamplePosition.data.{}", table.len()));
            tables.push((var, at, table));
        }
        let result = self.function_variable(v2, "var.GetSamplePosition.result");
        let image = self.object_value(base)?;
        let image = self.plain_image(image);
        let count = self.fallback_val("spirv.ImageQuerySamples", &[Opnd::Id(image)], ut);
        let index = self.rvalue(self.arg(args, 0)?)?;
        for &(var, at, table) in &tables {
            let mut rows = Vec::new();
            for &(x, y) in table {
                let x = self.scalar_attr(ConstValue::Float(x / 16.0), ft);
                let y = self.scalar_attr(ConstValue::Float(y / 16.0), ft);
                rows.push(Attribute::Dense { elements: vec![x, y], ty: v2 });
            }
            let data = self.constant_attr(Attribute::Array(rows), at);
            self.store_to(var, data);
        }
        let mut merges = Vec::new();
        for &(var, _, table) in &tables {
            let n = table.len();
            let wanted = self.u32_constant(n as u32);
            let equal = self.val("spirv.IEqual", vec![count, wanted], bt);
            let then_block = self.new_block(&format!("if.GetSamplePosition.then{n}"));
            let else_block = self.new_block(&format!("if.GetSamplePosition.else{n}"));
            let merge = self.new_block(&format!("if.GetSamplePosition.merge{n}"));
            self.selection_header(merge, 0);
            self.branch_conditional(equal, then_block, else_block);
            self.start_block(then_block);
            let element = self.access_chain(var, vec![index], v2);
            let position = self.load(element);
            self.store_to(result, position);
            self.branch(merge);
            self.start_block(else_block);
            merges.push(merge);
        }
        let zero = self.splat_constant(ConstValue::Float(0.0), v2);
        self.store_to(result, zero);
        while let Some(merge) = merges.pop() {
            self.branch(merge);
            self.start_block(merge);
        }
        Ok(self.load(result))
    }

    /// `SubpassLoad([sample])`: `OpImageRead` at coordinate (0, 0).
    fn subpass_load(&mut self, base: ExprId, args: &[ExprId]) -> R<Value> {
        let base_ty = self.tree.converted_type(base);
        let image = self.object_value(base)?;
        let it = self.i32_type();
        let v2 = self.vec_type(it, 2);
        let zero = self.splat_constant(ConstValue::Int(0), v2);
        let mut ops = ImageOperands::default();
        if let Some(&s) = args.first() {
            ops.sample = Some(self.rvalue(s)?);
        }
        let (t4, s, n) = self.texel4(self.object_element(base_ty))?;
        let v = self.image_instruction("spirv.ImageRead", vec![image, zero], &ops, t4, None)?;
        self.shrink_texel(v, s, n)
    }

    /// Capabilities a read or write of a storage image of unknown format needs.
    fn storage_format_capability(&mut self, image: Value, write: bool) {
        let ty = self.ir.value_type(image);
        if let TypeKind::Image { params, .. } = self.lower.store().kind(ty).clone() {
            let storage = params.get(4).is_some_and(|p| p == "NoSampler");
            let subpass = params.first().is_some_and(|p| p == "SubpassData");
            if storage && !subpass && params.get(5).is_some_and(|f| f == "Unknown") {
                self.require(
                    if write { "StorageImageWriteWithoutFormat" } else { "StorageImageReadWithoutFormat" },
                    None,
                );
            }
        }
    }

    fn texture_dimensions(&mut self, base: ExprId, base_ty: Ty, args: &[ExprId]) -> R<Value> {
        let TypeData::Object { kind, .. } = self.data(base_ty).clone() else {
            return self.unsupported("GetDimensions");
        };
        let image = self.object_value(base)?;
        let image = self.plain_image(image);
        let shape = kind.shape();
        let dims = match shape {
            Some(s) => u32::from(s.dims) + u32::from(s.array),
            None => 1,
        };
        let ut = self.u32_type();
        let storage = matches!(kind.family(), Family::RWTexture | Family::RWBuffer | Family::Buffer);
        let ms = shape.is_some_and(|s| s.multisampled);
        let size_ty = self.vec_type(ut, dims);
        // With a mip level argument (sampled textures): query at that level and the
        // level count.
        let has_mip_arg = !storage && !ms && args.len() == (dims as usize) + 2;
        let size = if storage || ms {
            self.val("spirv.ImageQuerySize", vec![image], size_ty)
        } else {
            let lod = if has_mip_arg {
                self.rvalue_as(self.arg(args, 0)?, TypeTable::UINT)?
            } else {
                self.i32_constant(0)
            };
            self.fallback_val("spirv.ImageQuerySizeLod", &[Opnd::Id(image), Opnd::Id(lod)], size_ty)
        };
        let outs = if has_mip_arg { &args[1..] } else { args };
        for (i, &out) in outs.iter().enumerate() {
            let value = if (i as u32) < dims {
                if dims == 1 {
                    size
                } else {
                    self.extract(size, &[i as u32], ut)
                }
            } else if ms {
                self.fallback_val("spirv.ImageQuerySamples", &[Opnd::Id(image)], ut)
            } else {
                self.fallback_val("spirv.ImageQueryLevels", &[Opnd::Id(image)], ut)
            };
            let place = self.place(out)?;
            let pty = place.ty();
            let value = self.convert(value, TypeTable::UINT, pty)?;
            self.store_place(&place, value)?;
        }
        let t = self.void_type();
        Ok(self.undef(t))
    }

    /// An instruction the dialect lacks, in the translate crate's fallback form.
    pub fn fallback_val(&mut self, name: &str, items: &[Opnd], ty: Type) -> Value {
        let props = self.fallback_props(items);
        let operands = items.iter().filter_map(|i| match i {
            Opnd::Id(v) => Some(*v),
            Opnd::Lit(_) => None,
        });
        let operands: Vec<Value> = operands.collect();
        self.op(name, operands, Some(ty), props)
    }

    /// An instruction without a result that the dialect lacks, in the fallback form.
    pub fn fallback_effect(&mut self, name: &str, items: &[Opnd]) {
        let props = self.fallback_props(items);
        let operands: Vec<Value> = items
            .iter()
            .filter_map(|i| match i {
                Opnd::Id(v) => Some(*v),
                Opnd::Lit(_) => None,
            })
            .collect();
        self.effect(name, operands, props);
    }

    fn fallback_props(&mut self, items: &[Opnd]) -> Vec<NamedAttribute> {
        if !items.iter().any(|i| matches!(i, Opnd::Lit(_))) {
            return Vec::new();
        }
        let i32t = self.store().integer(32, spirvkit_ir::types::Signedness::Signless);
        let mut layout = String::new();
        let mut literals = Vec::new();
        for i in items {
            match i {
                Opnd::Id(_) => layout.push('i'),
                Opnd::Lit(w) => {
                    layout.push('l');
                    literals.push(Attribute::Integer { value: i128::from(*w as i32), ty: i32t });
                }
            }
        }
        vec![
            prop(spirvkit_translate::fallback::LITERALS_ATTR, Attribute::Array(literals)),
            prop(spirvkit_translate::fallback::LAYOUT_ATTR, Attribute::String(layout)),
        ]
    }

    #[allow(dead_code)]
    fn is_resource_decl(&self, d: DeclId) -> bool {
        matches!(self.global_storage(d), Some(GlobalStorage::Resource))
            || self.ast.decl(d).modifiers.contains(Modifiers::UNIFORM)
                && matches!(self.ast.decl(d).kind, DeclKind::Var(_))
                && {
                    let _ = ExprKind::Error;
                    false
                }
    }
}

/// The image and sampler a sampling method combines (after its other arguments);
/// `None` for a `SampledTexture*`, already combined.
type PendingSampler = Option<(Value, Value)>;

/// An operand of a fallback instruction: an SSA value or a literal word.
#[derive(Clone, Copy, Debug)]
pub enum Opnd {
    Id(Value),
    Lit(u32),
}

/// The first of `n` consecutive numbers at or above `from` none of which is in `used`.
fn first_free_run(used: &std::collections::BTreeSet<u32>, n: u32, from: u32) -> u32 {
    let mut start = from;
    for &u in used.range(from..) {
        if u >= start.saturating_add(n) {
            break;
        }
        start = u.saturating_add(1);
    }
    start
}

fn round_up(v: u32, a: u32) -> u32 {
    if a <= 1 {
        v
    } else {
        v.div_ceil(a) * a
    }
}

/// The alignment a structured buffer's element stride is rounded to.
fn stride_align(e: &mut Emitter<'_>, elem: Ty, rule: LayoutRule) -> u32 {
    let c = e.lower.calculator(rule);
    c.layout(elem).map_or(1, |l| l.align)
}

/// dxc's inferred image format of an element type (32-bit 1, 2 or 4 components).
/// The format dxc infers for a storage image or typed buffer of `n` components of
/// the declared scalar `declared` (`sampled` is the sampled type it lowers to): the
/// 32-bit formats, the 16-bit ones for `half` and the minimum precisions lowered to
/// 32 bits (none for real 16-bit types), the 64-bit ones for 64-bit integer scalars;
/// `Unknown` for three components and anything else.
fn image_format(declared: Scalar, sampled: Scalar, n: u32, sixteen_bit_types: bool) -> &'static str {
    if sixteen_bit_types && declared.bits(true) == 16 {
        // A real 16-bit type (`-enable-16bit-types`): dxc infers no format.
        return "Unknown";
    }
    let class = match declared {
        Scalar::Half | Scalar::Min16Float | Scalar::Min10Float => "16f",
        Scalar::Int16 | Scalar::Min16Int | Scalar::Min12Int => "16i",
        Scalar::UInt16 | Scalar::Min16UInt => "16ui",
        Scalar::Int64 => "64i",
        Scalar::UInt64 => "64ui",
        _ if sampled.is_float() && sampled != Scalar::Double => "32f",
        _ if sampled.is_integer() && sampled.is_signed() => "32i",
        _ if sampled.is_integer() => "32ui",
        _ => return "Unknown",
    };
    match (class, n) {
        ("32f", 1) => "R32f",
        ("32f", 2) => "Rg32f",
        ("32f", 4) => "Rgba32f",
        ("32i", 1) => "R32i",
        ("32i", 2) => "Rg32i",
        ("32i", 4) => "Rgba32i",
        ("32ui", 1) => "R32ui",
        ("32ui", 2) => "Rg32ui",
        ("32ui", 4) => "Rgba32ui",
        ("16f", 1) => "R16f",
        ("16f", 2) => "Rg16f",
        ("16f", 4) => "Rgba16f",
        ("16i", 1) => "R16i",
        ("16i", 2) => "Rg16i",
        ("16i", 4) => "Rgba16i",
        ("16ui", 1) => "R16ui",
        ("16ui", 2) => "Rg16ui",
        ("16ui", 4) => "Rgba16ui",
        ("64i", 1) => "R64i",
        ("64ui", 1) => "R64ui",
        _ => "Unknown",
    }
}

/// The SPIR-V image formats by their `[[vk::image_format]]` spelling (the grammar's
/// name in lower case; `r11g11b10f` for `R11fG11fB10f`).
const IMAGE_FORMATS: &[&str] = &[
    "Unknown",
    "Rgba32f",
    "Rgba16f",
    "R32f",
    "Rgba8",
    "Rgba8Snorm",
    "Rg32f",
    "Rg16f",
    "R11fG11fB10f",
    "R16f",
    "Rgba16",
    "Rgb10A2",
    "Rg16",
    "Rg8",
    "R16",
    "R8",
    "Rgba16Snorm",
    "Rg16Snorm",
    "Rg8Snorm",
    "R16Snorm",
    "R8Snorm",
    "Rgba32i",
    "Rgba16i",
    "Rgba8i",
    "R32i",
    "Rg32i",
    "Rg16i",
    "Rg8i",
    "R16i",
    "R8i",
    "Rgba32ui",
    "Rgba16ui",
    "Rgba8ui",
    "R32ui",
    "Rgb10a2ui",
    "Rg32ui",
    "Rg16ui",
    "Rg8ui",
    "R16ui",
    "R8ui",
    "R64ui",
    "R64i",
];

fn image_format_by_name(name: &str) -> Option<&'static str> {
    if name.eq_ignore_ascii_case("r11g11b10f") {
        return Some("R11fG11fB10f");
    }
    IMAGE_FORMATS.iter().copied().find(|f| f.eq_ignore_ascii_case(name))
}

/// Formats that need `StorageImageExtendedFormats`.
fn is_extended_format(format: &str) -> bool {
    !matches!(
        format,
        "Unknown"
            | "Rgba32f"
            | "Rgba16f"
            | "R32f"
            | "Rgba8"
            | "Rgba8Snorm"
            | "Rgba32i"
            | "Rgba16i"
            | "Rgba8i"
            | "R32i"
            | "Rgba32ui"
            | "Rgba16ui"
            | "Rgba8ui"
            | "R32ui"
            | "R64ui"
            | "R64i"
    )
}

/// Image operands of an image instruction, written in mask-bit order.
#[derive(Default)]
pub(crate) struct ImageOperands {
    pub bias: Option<Value>,
    pub lod: Option<Value>,
    pub grad: Option<(Value, Value)>,
    pub const_offset: Option<Value>,
    pub offset: Option<Value>,
    pub const_offsets: Option<Value>,
    pub sample: Option<Value>,
    pub min_lod: Option<Value>,
}

impl ImageOperands {
    /// The mask, the operands' grammar names and their values in order.
    fn encode(&self) -> (u32, Vec<&'static str>, Vec<Value>) {
        let mut mask = 0;
        let mut names = Vec::new();
        let mut values = Vec::new();
        let mut one = |bit: u32, name: &'static str, v: Option<Value>| {
            if let Some(v) = v {
                mask |= bit;
                names.push(name);
                values.push(v);
            }
        };
        one(0x1, "Bias", self.bias);
        one(0x2, "Lod", self.lod);
        if let Some((dx, dy)) = self.grad {
            mask |= 0x4;
            names.push("Grad");
            values.extend([dx, dy]);
        }
        let mut one = |bit: u32, name: &'static str, v: Option<Value>| {
            if let Some(v) = v {
                mask |= bit;
                names.push(name);
                values.push(v);
            }
        };
        one(0x8, "ConstOffset", self.const_offset);
        one(0x10, "Offset", self.offset);
        one(0x20, "ConstOffsets", self.const_offsets);
        one(0x40, "Sample", self.sample);
        one(0x80, "MinLod", self.min_lod);
        (mask, names, values)
    }
}

/// Ops whose result dxc decorates `NonUniform` when an operand is: arithmetic on the
/// index, the access chain into the descriptor array, the load of the descriptor, the
/// sampled image made of it, texel pointers and atomics through them. Image reads,
/// samples and queries are not decorated.
fn propagates_non_uniform(name: &str) -> bool {
    matches!(
        name,
        "spirv.AccessChain"
            | "spirv.InBoundsAccessChain"
            | "spirv.Load"
            | "spirv.SampledImage"
            | "spirv.ImageTexelPointer"
            | "spirv.IAdd"
            | "spirv.ISub"
            | "spirv.IMul"
            | "spirv.UDiv"
            | "spirv.SDiv"
            | "spirv.UMod"
            | "spirv.SMod"
            | "spirv.SRem"
            | "spirv.BitwiseAnd"
            | "spirv.BitwiseOr"
            | "spirv.BitwiseXor"
            | "spirv.ShiftLeftLogical"
            | "spirv.ShiftRightLogical"
            | "spirv.ShiftRightArithmetic"
            | "spirv.Bitcast"
            | "spirv.UConvert"
            | "spirv.SConvert"
    ) || name.starts_with("spirv.Atomic")
}

/// Where a raw-buffer access stands: a byte address, or the index of a 32-bit word
/// once a 32- or 64-bit access has advanced it (dxc keeps the form it last used).
#[derive(Clone, Copy)]
enum RawAddress {
    Byte(Value),
    Word(Value),
}
