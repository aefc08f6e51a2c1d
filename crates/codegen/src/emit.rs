//! The code generator: the typed tree of one translation unit -> a `spirv.module` in an
//! [`Ir`], as dxc's SPIR-V backend emits it before legalization (`-fcgl`).
//!
//! - Every local, parameter and temporary is a Function variable; expressions load and
//!   store through pointers (`expr.rs`), as dxc does, and legalization (mem2reg in the
//!   passes crate) cleans up later.
//! - Functions take their parameters as pointers to Function variables; each call
//!   copies its arguments into `param_var_*` variables and copies `out`/`inout` ones
//!   back (`call.rs`).
//! - Control flow is built as a plain CFG with the merge instruction of every header
//!   recorded, as dxc builds it (`stmt.rs`), and then structurized into
//!   `spirv.mlir.selection`/`spirv.mlir.loop` regions by the translate crate's
//!   structurizer, the same code that structurizes binaries.
//! - The entry point is a wrapper (`entry.rs`) that reads the stage inputs, calls the
//!   source entry function (`src_<name>`) and writes the stage outputs.
//! - Resources are global variables with bindings (`resources.rs`).

mod call;
mod checks;
mod convert;
mod debug_loc;
mod entry;
mod expr;
mod init_list;
mod inline_spirv;
mod intrinsics;
mod physical_buffer;
mod precise;
mod ray_query;
mod resources;
mod stmt;

use crate::builder::{self, enum_attr, prop, symbol};
use crate::layout::LayoutRule;
use crate::types::{CodegenError, LowerOptions, TypeLowering};
use spirvkit_grammar::fxhash::FxHashMap;
use spirvkit_hlsl::ast::{Ast, DeclId, DeclKind, ExprId, Modifiers};
use spirvkit_hlsl::sema::tree::{ConstValue, EntryPoint, GlobalStorage, ParamDirection, Stage, TypedTree};
use spirvkit_hlsl::sema::types::{Scalar, Ty, TypeData, TypeTable};
use spirvkit_hlsl::source::Span;
use spirvkit_ir::attr::{Attribute, NamedAttribute};
use spirvkit_ir::ir::{BlockId, Location, OpId, Value};
use spirvkit_ir::types::{FloatKind, Signedness, Type, TypeKind};
use spirvkit_ir::Ir;
use spirvkit_translate::structurize::MergeInfo;
use std::collections::{HashMap, HashSet};

pub use resources::BindingOptions;

/// What changes how a translation unit is compiled.
#[derive(Clone, Debug, Default)]
pub struct CodegenOptions {
    pub lower: LowerOptions,
    /// The SPIR-V version of the target environment (`-fspv-target-env`).
    pub spirv_version: (u8, u8),
    pub layout: crate::layout::LayoutOption,
    pub bindings: BindingOptions,
    /// `-fvk-invert-y`.
    pub invert_y: bool,
    /// `-fvk-use-dx-position-w`.
    pub dx_position_w: bool,
    /// `-fvk-support-nonzero-base-instance`.
    pub nonzero_base_instance: bool,
    /// `-fvk-support-nonzero-base-vertex`.
    pub nonzero_base_vertex: bool,
    /// `-fspv-use-unknown-image-format`: storage images and typed buffers without
    /// `[[vk::image_format]]` get format `Unknown` rather than one inferred.
    pub unknown_image_format: bool,
    /// `-fspv-extension=`: the extensions allowed (empty: all).
    pub allowed_extensions: Vec<String>,
    /// `-HV` is 2021 or later: `&&`, `||` and `?:` on scalars short-circuit.
    pub short_circuit: bool,
    /// `-ffinite-math-only`: `min`/`max` of floats as `FMin`/`FMax` (else `NMin`/`NMax`).
    pub finite_math_only: bool,
    /// The extensions `-fspv-extension` allows (empty: all).
    pub extensions: Vec<String>,
    /// `-fspv-target-env=universal1.5`: not a Vulkan environment (Vulkan's rules,
    /// such as 32-bit sampled types, do not apply).
    pub universal_env: bool,
    /// `-Wno-vk-ignored-features`: no warnings about what Vulkan ignores.
    pub no_warn_ignored_features: bool,
    /// `-fspv-debug=line` (or `-Zi`): ops carry the `file:line:col` dxc gives the
    /// instruction (with [`generate_with_sources`], which has the text to find it in).
    pub debug_lines: bool,
    /// `-fspv-reflect`: dxc's reflection decorations (`UserSemantic` on stage
    /// variables, `CounterBuffer` on buffers with a counter, `UserTypeGOOGLE`).
    pub reflect: bool,
    /// `-fspv-enable-maximal-reconvergence`: every entry point `MaximallyReconvergesKHR`.
    pub maximal_reconvergence: bool,
    /// `-denorm preserve|ftz` (any other value: the default): the 32-bit float
    /// denormal mode of every entry point.
    pub denorm: Option<String>,
}

/// A code generation error with where it happened.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{error}")]
pub struct CodegenDiagnostic {
    pub span: Option<Span>,
    pub error: CodegenError,
}

pub(crate) type R<T> = Result<T, CodegenDiagnostic>;

/// The generated module: the IR and its `spirv.module` op (inside a `builtin.module`).
pub struct Generated {
    pub ir: Ir,
    pub top: OpId,
    pub module: OpId,
    /// Debug names of values and blocks dxc gives (`param_var_x`, `if_true`), kept
    /// beside the IR until the IR carries names itself.
    pub value_names: Vec<(Value, String)>,
    pub block_names: Vec<(BlockId, String)>,
    /// The HLSL name of each IR struct whose identifier is not that name (`S.std430`
    /// is `S`), for `OpName` (`SerializeOptions::struct_names`).
    pub struct_names: HashMap<String, String>,
    /// The global variables dxc writes no `OpName` for (`SerializeOptions::unnamed_variables`).
    pub unnamed_symbols: Vec<String>,
    /// The resource variables in the order dxc decorates their descriptor set and
    /// binding (`SerializeOptions::binding_order`).
    pub binding_order: Vec<String>,
}

/// A global variable of the module, by the declaration it comes from.
#[derive(Clone, Debug)]
pub(crate) struct Global {
    pub symbol: String,
    /// The variable's pointer type.
    pub ptr_type: Type,
    /// The HLSL type of the pointee.
    pub ty: Ty,
    /// How the pointee is laid out (buffers).
    pub rule: Option<LayoutRule>,
    /// A member of a buffer block: the index of the member in the block struct.
    pub member_of: Option<(DeclId, u32)>,
}

/// A local variable or parameter of the function being emitted.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Local {
    pub ptr: Value,
    pub ty: Ty,
}

/// A user function with the storage classes of its pointer parameters (`this`
/// first): dxc passes an lvalue argument of another storage class (a `static`, a
/// `groupshared` variable, a buffer element) by its pointer, so the callee takes a
/// pointer of that class. Each signature is its own function; `classes` empty is the
/// usual one, every parameter in Function memory.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct FunctionVariant {
    pub decl: DeclId,
    pub classes: Vec<&'static str>,
}

/// Where `break` and `continue` go.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BreakTargets {
    pub break_to: BlockId,
    pub continue_to: Option<BlockId>,
}

/// The function being emitted.
pub(crate) struct FnState {
    pub func: OpId,
    pub entry: BlockId,
    /// Where ops go; `None` after a terminator.
    pub current: Option<BlockId>,
    /// How many `spirv.Variable`s lead the entry block.
    pub variables: usize,
    pub locals: HashMap<DeclId, Local>,
    pub headers: FxHashMap<BlockId, MergeInfo>,
    pub targets: Vec<BreakTargets>,
    pub return_type: Ty,
    /// `this` of a method: a pointer to the object.
    pub this: Option<Local>,
    /// Access chains another chain was folded from (`access_chain`); those left
    /// unused are removed when the function is finished.
    pub folded_chains: Vec<OpId>,
    /// Access chains later chains start from instead of folding into: a cbuffer
    /// member or a `ConstantBuffer` field, which dxc addresses by a chain of its own.
    pub chain_roots: HashSet<Value>,
    /// Addresses of cbuffers and `ConstantBuffer`/`TextureBuffer` views: a chain
    /// directly over one is a root.
    pub view_bases: HashSet<Value>,
}

pub(crate) struct Emitter<'t> {
    pub tree: &'t TypedTree,
    pub ast: &'t Ast,
    pub table: &'t TypeTable,
    pub lower: TypeLowering<'t>,
    pub ir: Ir,
    pub module_block: BlockId,
    pub options: &'t CodegenOptions,
    pub globals: HashMap<DeclId, Global>,
    /// Emitted (or queued) functions, one per storage-class signature: their symbol.
    pub functions: HashMap<FunctionVariant, String>,
    /// Functions to emit, in the order they were first called (dxc's work queue).
    pub queue: std::collections::VecDeque<FunctionVariant>,
    pub symbols: HashSet<String>,
    pub f: Option<FnState>,
    /// The entry point's interface variables.
    pub interface: Vec<String>,
    /// Global variables dxc leaves without an `OpName` (some built-ins).
    pub unnamed_symbols: Vec<String>,
    /// The resources in the order their bindings were decorated.
    pub binding_order: Vec<String>,
    pub value_names: Vec<(Value, String)>,
    pub block_names: Vec<(BlockId, String)>,
    /// The span of the construct being emitted, for errors.
    pub span: Option<Span>,
    pub entry: Option<EntryPoint>,
    /// Execution modes to add to the entry point: mode and values.
    pub execution_modes: Vec<(String, Vec<u32>)>,
    /// Execution modes whose operands are ids (`vk::ext_execution_mode_id`): mode and
    /// the values of their integer constants with their signedness.
    pub id_execution_modes: Vec<(String, Vec<(u32, bool)>)>,
    /// The module reaches memory by address (`PhysicalStorageBuffer64` addressing).
    pub physical_addressing: bool,
    pub resources: resources::ResourceState,
    /// Stage variables, streams and clip/cull layout of the entry (`entry.rs`).
    pub stage: entry::StageState,
    /// Values of `static const` scalars, read by name.
    pub recursion: HashSet<FunctionVariant>,
    /// Diagnostics reported without stopping (dxc reports every error of a pass):
    /// warnings, and errors after which code generation goes on (`checks.rs`).
    pub reported: Vec<spirvkit_hlsl::diag::Diagnostic>,
    /// The source files, when ops are to carry source locations (`debug_lines`).
    pub lines: Option<debug_loc::LineTable<'t>>,
    /// The location ops created now get (`Location::Unknown` without `lines`).
    pub loc: Location,
    /// What was declared `precise` (`precise.rs`).
    pub precise: precise::PreciseSeeds,
}

/// Generates the module of `tree`'s entry point. Errors reported without stopping
/// come back as the first of them; [`generate_reporting`] gives all diagnostics.
pub fn generate(tree: &TypedTree, options: &CodegenOptions) -> Result<Generated, CodegenDiagnostic> {
    let (result, reported) = generate_reporting(tree, options);
    match reported.into_iter().find(|d| d.severity == spirvkit_hlsl::diag::Severity::Error) {
        Some(first) => Err(CodegenDiagnostic {
            span: first.span,
            error: CodegenError::Rejected { message: first.message },
        }),
        None => result,
    }
}

/// Generates the module of `tree`'s entry point, with the diagnostics reported on the
/// way (warnings, and errors after which generation went on). When these hold an
/// error, the module (if any) must not be used.
pub fn generate_reporting(
    tree: &TypedTree,
    options: &CodegenOptions,
) -> (Result<Generated, CodegenDiagnostic>, Vec<spirvkit_hlsl::diag::Diagnostic>) {
    generate_with_sources(tree, options, None)
}

/// [`generate_reporting`], with the files the tree was parsed from: with
/// [`CodegenOptions::debug_lines`], ops carry the source location dxc gives each
/// instruction (a `file:line:col` location, under the value's name location if any).
pub fn generate_with_sources(
    tree: &TypedTree,
    options: &CodegenOptions,
    sources: Option<&spirvkit_hlsl::source::SourceMap>,
) -> (Result<Generated, CodegenDiagnostic>, Vec<spirvkit_hlsl::diag::Diagnostic>) {
    let mut reported = Vec::new();
    let lines = sources.filter(|_| options.debug_lines).map(debug_loc::LineTable::new);
    let result = generate_into(tree, options, lines, &mut reported);
    (result, reported)
}

fn generate_into<'t>(
    tree: &'t TypedTree,
    options: &'t CodegenOptions,
    lines: Option<debug_loc::LineTable<'t>>,
    reported: &mut Vec<spirvkit_hlsl::diag::Diagnostic>,
) -> Result<Generated, CodegenDiagnostic> {
    let mut table = tree.types.clone();
    preintern(&mut table);
    let mut store = spirvkit_ir::types::TypeStore::new();
    let offsets = crate::layout::explicit_offsets(tree);
    let generated = {
        let lower = TypeLowering::new(&table, &mut store, options.lower)
            .with_explicit_offsets(offsets)
            .with_interner(&tree.ast.interner);
        let mut ir = Ir::new();
        let top = ir.create_op("builtin.module", vec![], &[], Location::Unknown);
        let top_region = ir.add_region(top);
        let top_block = ir.create_block();
        ir.append_block(top_region, top_block);
        let module = ir.create_op("spirv.module", vec![], &[], Location::Unknown);
        ir.append_op(top_block, module);
        let region = ir.add_region(module);
        let module_block = ir.create_block();
        ir.append_block(region, module_block);
        let mut e = Emitter {
            tree,
            ast: &tree.ast,
            table: &table,
            lower,
            ir,
            module_block,
            options,
            globals: HashMap::new(),
            functions: HashMap::new(),
            queue: std::collections::VecDeque::new(),
            symbols: HashSet::new(),
            f: None,
            interface: Vec::new(),
            unnamed_symbols: Vec::new(),
            binding_order: Vec::new(),
            value_names: Vec::new(),
            block_names: Vec::new(),
            span: None,
            entry: None,
            execution_modes: Vec::new(),
            id_execution_modes: Vec::new(),
            physical_addressing: false,
            resources: resources::ResourceState::default(),
            precise: precise::PreciseSeeds::default(),
            stage: entry::StageState::default(),
            recursion: HashSet::new(),
            reported: Vec::new(),
            lines,
            loc: Location::Unknown,
        };
        let result = e.module(module);
        reported.append(&mut e.reported);
        result?;
        let struct_names = e.lower.struct_source_names().clone();
        (e.ir, top, module, e.value_names, e.block_names, struct_names, e.unnamed_symbols, e.binding_order)
    };
    let (mut ir, top, module, value_names, block_names, struct_names, unnamed_symbols, binding_order) =
        generated;
    ir.types = store;
    Ok(Generated { ir, top, module, value_names, block_names, struct_names, unnamed_symbols, binding_order })
}

/// Interns the scalar, vector and matrix types of every component type, so that
/// codegen finds them in the (shared) table.
fn preintern(table: &mut TypeTable) {
    use Scalar::*;
    for s in [
        Bool, Int, UInt, Int16, UInt16, Int64, UInt64, Half, Float, Double, Min16Float, Min10Float, Min16Int,
        Min12Int, Min16UInt,
    ] {
        table.scalar(s);
        for n in 1..=4u8 {
            table.vector(s, n);
            for m in 1..=4u8 {
                table.matrix(s, n, m);
            }
        }
    }
}

/// One entry point emitted: what its `OpEntryPoint` and `OpExecutionMode`s need.
struct EmittedEntry {
    entry: EntryPoint,
    /// The stage variables its wrapper made or reused, in order.
    own_interface: Vec<String>,
    modes: Vec<(String, Vec<u32>)>,
    id_modes: Vec<(String, Vec<(u32, bool)>)>,
}

fn err<T>(span: Option<Span>, error: CodegenError) -> R<T> {
    Err(CodegenDiagnostic { span, error })
}

impl<'t> Emitter<'t> {
    // ---- errors -------------------------------------------------------------------

    pub fn unsupported<T>(&self, what: impl Into<String>) -> R<T> {
        err(self.span, CodegenError::NotSupported { what: what.into() })
    }

    pub fn lift<T>(&self, r: Result<T, CodegenError>) -> R<T> {
        r.map_err(|error| CodegenDiagnostic { span: self.span, error })
    }

    // ---- names ---------------------------------------------------------------------

    pub fn name(&self, sym: spirvkit_hlsl::lexer::Symbol) -> &'t str {
        self.ast.name(sym)
    }

    /// A module-unique symbol based on `base` (dxc's names are not unique; symbols
    /// must be).
    pub fn unique_symbol(&mut self, base: &str) -> String {
        let base = if base.is_empty() { "var" } else { base };
        let mut name = base.to_string();
        let mut n = 0;
        while self.symbols.contains(&name) {
            name = format!("{base}_{n}");
            n += 1;
        }
        self.symbols.insert(name.clone());
        name
    }

    /// Gives a value dxc's debug name (an `OpName` in the binary).
    pub fn name_value(&mut self, value: Value, name: impl Into<String>) {
        let name: String = name.into();
        match self.ir.value(value).def {
            spirvkit_ir::ir::ValueDef::Result { op, .. } => {
                let at = &mut self.ir.op_mut(op).location;
                *at = debug_loc::renamed(std::mem::take(at), name);
            }
            spirvkit_ir::ir::ValueDef::Argument { block, index } => {
                if let Some(l) = self.ir.block_mut(block).argument_locations.get_mut(index as usize) {
                    *l = debug_loc::renamed(std::mem::take(l), name);
                }
            }
        }
    }

    /// A new block named as dxc names it.
    pub fn new_block(&mut self, name: &str) -> BlockId {
        let block = self.ir.create_block();
        self.ir.set_block_name(block, name);
        block
    }

    // ---- types ---------------------------------------------------------------------

    pub fn ty(&mut self, ty: Ty) -> R<Type> {
        self.ty_in(ty, None)
    }

    pub fn ty_in(&mut self, ty: Ty, rule: Option<LayoutRule>) -> R<Type> {
        match self.data(ty).clone() {
            TypeData::Object { .. } => return self.resource_value_type(ty),
            TypeData::Array { elem, len: None } if matches!(self.data(elem), TypeData::Object { .. }) => {
                // An unsized array of resources exists only as its global: a value of
                // it (a parameter, a local) is the pointer to that global, as dxc
                // passes it; Vulkan allows a runtime array in no Function variable.
                return self.unsized_resource_array_pointer(elem);
            }
            TypeData::Array { elem, len } if self.contains_object(elem, 0) => {
                let e = self.ty_in(elem, rule)?;
                return Ok(match len {
                    Some(n) => self.store().array(e, n, None),
                    None => self.store().intern(TypeKind::RuntimeArray {
                        element: e,
                        stride: None,
                        stride_id: None,
                    }),
                });
            }
            _ => {}
        }
        if rule.is_none() && !self.lower.is_lowered(ty, None) {
            self.provide_member_objects(ty, 0)?;
        }
        let r = self.lower.lower(ty, rule);
        self.lift(r)
    }

    /// Lowers the resource objects a struct holds (through arrays and nested
    /// structs) ahead of the struct, which the type lowering then builds from them:
    /// HLSL lets structs hold textures and samplers, legalization takes them apart.
    fn provide_member_objects(&mut self, ty: Ty, depth: u32) -> R<()> {
        if depth > 64 || self.lower.is_lowered(ty, None) {
            return Ok(());
        }
        match self.data(ty).clone() {
            TypeData::Object { .. } => {
                let t = self.resource_value_type(ty)?;
                self.lower.provide(ty, None, t);
            }
            TypeData::Array { elem, .. } => self.provide_member_objects(elem, depth + 1)?,
            TypeData::Struct(id) => {
                let members =
                    self.lift(crate::layout::struct_members(self.table, id, &self.lower.options()))?;
                for m in members {
                    self.provide_member_objects(m, depth + 1)?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Whether a value of `ty` is a pointer to a resource's memory rather than the
    /// memory's contents: buffers, and unsized arrays of resources.
    pub fn is_pointer_valued(&self, ty: Ty) -> bool {
        match self.data(ty) {
            TypeData::Array { elem, len: None } => matches!(self.data(*elem), TypeData::Object { .. }),
            TypeData::Object { .. } => self.is_buffer_object(ty),
            _ => false,
        }
    }

    /// Whether a type is or holds (through arrays) a resource object.
    pub fn contains_object(&self, ty: Ty, depth: u32) -> bool {
        match self.data(ty) {
            TypeData::Object { .. } => true,
            TypeData::Array { elem, .. } if depth < 64 => self.contains_object(*elem, depth + 1),
            _ => false,
        }
    }

    pub fn store(&mut self) -> &mut spirvkit_ir::types::TypeStore {
        self.lower.store_mut()
    }

    pub fn pointer(&mut self, pointee: Type, class: &str) -> Type {
        self.store().pointer(pointee, class)
    }

    pub fn bool_type(&mut self) -> Type {
        self.store().integer(1, Signedness::Signless)
    }

    pub fn u32_type(&mut self) -> Type {
        self.store().integer(32, Signedness::Signless)
    }

    pub fn i32_type(&mut self) -> Type {
        self.store().integer(32, Signedness::Signed)
    }

    pub fn f32_type(&mut self) -> Type {
        self.store().float(FloatKind::F32)
    }

    pub fn vec_type(&mut self, element: Type, n: u32) -> Type {
        if n == 1 {
            element
        } else {
            self.store().vector(u64::from(n), element)
        }
    }

    pub fn void_type(&mut self) -> Type {
        self.store().intern(TypeKind::None)
    }

    /// The HLSL type with this data (pre-interned scalars, vectors and matrices).
    pub fn hlsl(&self, data: TypeData) -> Ty {
        self.table.lookup(&data).unwrap_or(TypeTable::ERROR)
    }

    pub fn scalar_ty(&self, s: Scalar) -> Ty {
        self.hlsl(TypeData::Scalar(s.concrete()))
    }

    /// `s` with `n` components (a scalar when `n` is 1).
    pub fn vector_ty(&self, s: Scalar, n: u32) -> Ty {
        if n <= 1 {
            self.scalar_ty(s)
        } else {
            self.hlsl(TypeData::Vector(s.concrete(), n as u8))
        }
    }

    pub fn data(&self, ty: Ty) -> &'t TypeData {
        self.table.get(ty)
    }

    /// Component type and count of a scalar or vector (a 1x1/1xN/Nx1 matrix folds).
    pub fn scalar_shape(&self, ty: Ty) -> Option<(Scalar, u32)> {
        match self.data(ty) {
            TypeData::Scalar(s) => Some((s.concrete(), 1)),
            TypeData::Enum(_) => Some((self.table.component(ty).unwrap_or(Scalar::Int), 1)),
            TypeData::Vector(s, n) => Some((s.concrete(), u32::from(*n))),
            TypeData::Matrix { elem, rows, cols, .. } if *rows == 1 || *cols == 1 => {
                Some((elem.concrete(), u32::from(*rows) * u32::from(*cols)))
            }
            _ => None,
        }
    }

    /// A true (non-degenerate) matrix: its component, rows and columns.
    pub fn matrix_shape(&self, ty: Ty) -> Option<(Scalar, u32, u32)> {
        match self.data(ty) {
            TypeData::Matrix { elem, rows, cols, .. } if *rows > 1 && *cols > 1 => {
                Some((elem.concrete(), u32::from(*rows), u32::from(*cols)))
            }
            _ => None,
        }
    }

    // ---- building ops --------------------------------------------------------------

    pub fn fs(&mut self) -> &mut FnState {
        self.f.as_mut().expect("inside a function")
    }

    pub fn current(&self) -> Option<BlockId> {
        self.f.as_ref().and_then(|f| f.current)
    }

    /// Appends an op to the current block; its result (a placeholder value when the
    /// block is unreachable, so callers need not care).
    pub fn op(
        &mut self,
        name: &str,
        operands: Vec<Value>,
        result: Option<Type>,
        props: Vec<NamedAttribute>,
    ) -> Value {
        let block = self.current();
        let mut props = props;
        let non_uniform = self.non_uniform_prop(name, &operands);
        if let Some(p) = non_uniform.clone() {
            props.push(p);
        }
        let (op, value) = builder::append(&mut self.ir, block, name, operands, result, props);
        self.locate(op);
        match value {
            Some(v) => {
                if non_uniform.is_some() {
                    self.note_non_uniform(v);
                }
                v
            }
            None => {
                // Ops without a result return a dummy none value; it is never used.
                let none = self.void_type();
                let _ = op;
                self.undef(none)
            }
        }
    }

    /// An op with a result.
    pub fn val(&mut self, name: &str, operands: Vec<Value>, ty: Type) -> Value {
        self.op(name, operands, Some(ty), Vec::new())
    }

    pub fn val_props(
        &mut self,
        name: &str,
        operands: Vec<Value>,
        ty: Type,
        props: Vec<NamedAttribute>,
    ) -> Value {
        self.op(name, operands, Some(ty), props)
    }

    /// An op without a result.
    pub fn effect(&mut self, name: &str, operands: Vec<Value>, props: Vec<NamedAttribute>) {
        let block = self.current();
        let (op, _) = builder::append(&mut self.ir, block, name, operands, None, props);
        self.locate(op);
    }

    /// A value nobody reads (a detached `spirv.Undef`).
    pub fn undef(&mut self, ty: Type) -> Value {
        let op = self.ir.create_op("spirv.Undef", vec![], &[ty], Location::Unknown);
        self.ir.op(op).results[0]
    }

    /// `spirv.Undef` in the current block.
    pub fn undef_here(&mut self, ty: Type) -> Value {
        self.val("spirv.Undef", vec![], ty)
    }

    /// Ends the current block with a terminator.
    pub fn terminate(
        &mut self,
        name: &str,
        operands: Vec<Value>,
        successors: &[BlockId],
        props: Vec<NamedAttribute>,
    ) {
        let Some(block) = self.current() else { return };
        let (op, _) = builder::append(&mut self.ir, Some(block), name, operands, None, props);
        self.locate(op);
        self.ir.op_mut(op).successors.extend(successors.iter().copied());
        self.fs().current = None;
    }

    pub fn branch(&mut self, to: BlockId) {
        self.terminate("spirv.Branch", vec![], &[to], Vec::new());
    }

    pub fn branch_conditional(&mut self, condition: Value, on_true: BlockId, on_false: BlockId) {
        let sizes = self.segment_sizes(&[1, 0, 0]);
        self.terminate("spirv.BranchConditional", vec![condition], &[on_true, on_false], vec![sizes]);
    }

    pub fn segment_sizes(&mut self, sizes: &[i32]) -> NamedAttribute {
        let element = self.store().integer(32, Signedness::Signless);
        let values =
            sizes.iter().map(|&n| Attribute::Integer { value: i128::from(n), ty: element }).collect();
        prop("operandSegmentSizes", Attribute::DenseArray { element, values })
    }

    /// Starts emitting into `block`, appending it to the function's body.
    pub fn start_block(&mut self, block: BlockId) {
        let func = self.fs().func;
        let region = self.ir.op(func).regions[0];
        self.ir.append_block(region, block);
        self.fs().current = Some(block);
    }

    /// A Function variable at the top of the entry block (SPIR-V requires them there).
    pub fn function_variable(&mut self, ty: Type, name: &str) -> Value {
        let ptr = self.pointer(ty, "Function");
        let op = self.ir.create_op("spirv.Variable", vec![], &[ptr], Location::Unknown);
        self.ir.op_mut(op).properties = vec![prop("storage_class", enum_attr("storage_class", "Function"))];
        let f = self.f.as_mut().expect("inside a function");
        let (entry, at) = (f.entry, f.variables);
        f.variables += 1;
        let ops = &self.ir.block(entry).ops;
        if let Some(&before) = ops.get(at) {
            self.ir.insert_op_before(entry, before, op);
        } else {
            self.ir.append_op(entry, op);
        }
        let value = self.ir.op(op).results[0];
        self.name_value(value, name);
        value
    }

    pub fn load(&mut self, ptr: Value) -> Value {
        let ty = match self.pointee(ptr) {
            Some(t) => t,
            None => self.void_type(),
        };
        self.val("spirv.Load", vec![ptr], ty)
    }

    pub fn store_to(&mut self, ptr: Value, value: Value) {
        self.effect("spirv.Store", vec![ptr, value], Vec::new());
    }

    /// An access chain to `result_pointee` through `indices`, from `base` as it is.
    pub fn access_chain(&mut self, base: Value, indices: Vec<Value>, result_pointee: Type) -> Value {
        let operands = std::iter::once(base).chain(indices).collect();
        self.chain_op(base, operands, result_pointee)
    }

    /// An access chain to an element (member, buffer element, vector component or
    /// matrix element) of the place `base` points to. Chains `base` was built from
    /// are folded into it, as dxc collects every index of an lvalue expression into
    /// one `OpAccessChain` from the base variable; the chains folded away are removed
    /// at the end of the function when nothing else uses them. dxc starts a chain of
    /// its own at a cbuffer member or a `ConstantBuffer` field (a root).
    pub fn element_chain(&mut self, base: Value, indices: Vec<Value>, result_pointee: Type) -> Value {
        let mut root = base;
        let mut operands_rev: Vec<Value> = indices.into_iter().rev().collect();
        while let spirvkit_ir::ir::ValueDef::Result { op, .. } = self.ir.value(root).def {
            let Some(f) = self.f.as_mut() else { break };
            let inner = self.ir.op(op);
            if inner.name != "spirv.AccessChain" || f.chain_roots.contains(&root) || inner.operands.is_empty()
            {
                break;
            }
            f.folded_chains.push(op);
            operands_rev.extend(inner.operands[1..].iter().rev().copied());
            root = inner.operands[0];
        }
        operands_rev.push(root);
        operands_rev.reverse();
        self.chain_op(base, operands_rev, result_pointee)
    }

    /// The `spirv.AccessChain` op over `operands` (`base` is the chain's base before
    /// folding: a chain directly over a buffer view is a root).
    fn chain_op(&mut self, base: Value, operands: Vec<Value>, result_pointee: Type) -> Value {
        let class = self.storage_class_of(operands[0]);
        let ptr = self.pointer(result_pointee, &class);
        let chain = self.val("spirv.AccessChain", operands, ptr);
        if let Some(f) = self.f.as_mut() {
            if f.view_bases.contains(&base) {
                f.chain_roots.insert(chain);
            }
        }
        chain
    }

    /// Marks `chain` as a root: later element chains over it are not folded into it.
    pub fn chain_root(&mut self, chain: Value) {
        if let Some(f) = self.f.as_mut() {
            f.chain_roots.insert(chain);
        }
    }

    /// Marks `base` (a buffer view's address) as one whose chains are roots: later
    /// chains over them are not folded into them.
    pub fn view_base(&mut self, base: Value) {
        if let Some(f) = self.f.as_mut() {
            f.view_bases.insert(base);
        }
    }

    /// Removes the folded access chains nothing uses any more.
    fn remove_folded_chains(&mut self, func: OpId) {
        let mut folded = std::mem::take(&mut self.fs().folded_chains);
        if folded.is_empty() {
            return;
        }
        // In creation order (ops are numbered as they are created), each once.
        folded.sort_unstable_by_key(|op| op.index());
        folded.dedup();
        let mut uses: FxHashMap<Value, u32> = FxHashMap::default();
        self.ir.for_each_op_under(func, |_, op| {
            for &v in &self.ir.op(op).operands {
                *uses.entry(v).or_default() += 1;
            }
        });
        let mut dead: HashSet<OpId> = HashSet::new();
        // Later chains first: removing one may leave the chain it was built on unused.
        for &op in folded.iter().rev() {
            let o = self.ir.op(op);
            if o.parent.is_none() || uses.get(&o.results[0]).copied().unwrap_or(0) > 0 {
                continue;
            }
            for &v in &o.operands {
                if let Some(n) = uses.get_mut(&v) {
                    *n = n.saturating_sub(1);
                }
            }
            dead.insert(op);
        }
        let mut blocks: HashSet<BlockId> = HashSet::new();
        for &op in &dead {
            if let Some(b) = self.ir.op_mut(op).parent.take() {
                blocks.insert(b);
            }
        }
        for b in blocks {
            self.ir.block_mut(b).ops.retain(|o| !dead.contains(o));
        }
    }

    pub fn storage_class_of(&self, ptr: Value) -> String {
        match self.lower.store().kind(self.ir.value_type(ptr)) {
            TypeKind::Pointer { storage_class, .. } => storage_class.clone(),
            _ => "Function".to_string(),
        }
    }

    /// Whether `ptr` points to a variable holding a pointer (a local, parameter or
    /// static of a buffer type) rather than to the memory itself.
    pub fn holds_pointer(&self, ptr: Value) -> bool {
        self.pointee(ptr).is_some_and(|t| matches!(self.lower.store().kind(t), TypeKind::Pointer { .. }))
    }

    pub fn pointee(&self, ptr: Value) -> Option<Type> {
        match self.lower.store().kind(self.ir.value_type(ptr)) {
            TypeKind::Pointer { pointee, .. } => Some(*pointee),
            _ => None,
        }
    }

    pub fn addressof(&mut self, symbol_name: &str, ptr_type: Type) -> Value {
        self.val_props("spirv.mlir.addressof", vec![], ptr_type, vec![prop("variable", symbol(symbol_name))])
    }

    pub fn extract(&mut self, composite: Value, indices: &[u32], ty: Type) -> Value {
        let attr = builder::i32_array(self.store(), indices);
        self.val_props("spirv.CompositeExtract", vec![composite], ty, vec![prop("indices", attr)])
    }

    pub fn insert(&mut self, object: Value, composite: Value, indices: &[u32]) -> Value {
        let ty = self.ir.value_type(composite);
        let attr = builder::i32_array(self.store(), indices);
        self.val_props("spirv.CompositeInsert", vec![object, composite], ty, vec![prop("indices", attr)])
    }

    /// A composite of `parts`; of constants, a constant (dxc's OpConstantComposite).
    pub fn construct(&mut self, parts: Vec<Value>, ty: Type) -> Value {
        if let Some(c) = self.constant_composite(&parts, ty) {
            return c;
        }
        if let Some(c) = self.spec_constant_composite(&parts, ty) {
            return c;
        }
        self.val("spirv.CompositeConstruct", parts, ty)
    }

    /// The value attribute of a value defined by `spirv.Constant`.
    pub fn constant_value(&self, v: Value) -> Option<Attribute> {
        let spirvkit_ir::ir::ValueDef::Result { op, .. } = self.ir.value(v).def else { return None };
        let op = self.ir.op(op);
        if op.name != "spirv.Constant" {
            return None;
        }
        op.attr("value").cloned()
    }

    fn constant_composite(&mut self, parts: &[Value], ty: Type) -> Option<Value> {
        let values: Vec<Attribute> = parts.iter().map(|&p| self.constant_value(p)).collect::<Option<_>>()?;
        match self.lower.store().kind(ty).clone() {
            TypeKind::Vector { .. }
                if values.iter().all(|a| {
                    matches!(a, Attribute::Integer { .. } | Attribute::Float { .. } | Attribute::Bool(_))
                }) =>
            {
                Some(self.constant_attr(Attribute::Dense { elements: values, ty }, ty))
            }
            TypeKind::Matrix { .. } if values.iter().all(|a| matches!(a, Attribute::Dense { .. })) => {
                Some(self.constant_attr(Attribute::Array(values), ty))
            }
            _ => None,
        }
    }

    pub fn shuffle(&mut self, a: Value, b: Value, components: &[u32], ty: Type) -> Value {
        let attr = builder::i32_array(self.store(), components);
        self.val_props("spirv.VectorShuffle", vec![a, b], ty, vec![prop("components", attr)])
    }

    // ---- constants -----------------------------------------------------------------

    pub fn constant_attr(&mut self, value: Attribute, ty: Type) -> Value {
        self.val_props("spirv.Constant", vec![], ty, vec![prop("value", value)])
    }

    /// A scalar constant of IR type `ty` (bool, integer or float).
    pub fn scalar_constant(&mut self, value: ConstValue, ty: Type) -> Value {
        let attr = self.scalar_attr(value, ty);
        self.constant_attr(attr, ty)
    }

    pub fn scalar_attr(&mut self, value: ConstValue, ty: Type) -> Attribute {
        match self.lower.store().kind(ty).clone() {
            TypeKind::Integer { width: 1, .. } => Attribute::Bool(value.as_bool()),
            TypeKind::Integer { width, signedness } => {
                let v = value.as_int().unwrap_or(0);
                let v = match (width, signedness) {
                    (64, Signedness::Signed) => i128::from(v),
                    (64, _) => i128::from(v as u64),
                    (w, Signedness::Signed) => i128::from(v) << (128 - w) >> (128 - w),
                    (w, _) => i128::from(v) & ((1i128 << w) - 1),
                };
                Attribute::Integer { value: v, ty }
            }
            TypeKind::Float(kind) => {
                let v = value.as_float();
                let v = match kind {
                    FloatKind::F32 => f64::from(v as f32),
                    FloatKind::F16 => f64::from(half_round(v as f32)),
                    _ => v,
                };
                Attribute::Float { value: v, ty }
            }
            _ => Attribute::Integer { value: 0, ty },
        }
    }

    /// A constant of a scalar or vector IR type, every component `value`.
    pub fn splat_constant(&mut self, value: ConstValue, ty: Type) -> Value {
        match self.lower.store().kind(ty).clone() {
            TypeKind::Vector { shape, element, .. } => {
                let n = shape.first().copied().unwrap_or(1) as usize;
                let attr = self.scalar_attr(value, element);
                self.constant_attr(Attribute::Dense { elements: vec![attr; n], ty }, ty)
            }
            TypeKind::Matrix { column, columns } => {
                let row = self.splat_constant(value, column);
                self.construct(vec![row; columns as usize], ty)
            }
            _ => self.scalar_constant(value, ty),
        }
    }

    pub fn u32_constant(&mut self, v: u32) -> Value {
        let ty = self.u32_type();
        self.scalar_constant(ConstValue::Int(i64::from(v)), ty)
    }

    pub fn i32_constant(&mut self, v: i32) -> Value {
        let ty = self.i32_type();
        self.scalar_constant(ConstValue::Int(i64::from(v)), ty)
    }

    pub fn bool_constant(&mut self, v: bool) -> Value {
        let ty = self.bool_type();
        self.scalar_constant(ConstValue::Bool(v), ty)
    }

    // ---- the module ----------------------------------------------------------------

    fn module(&mut self, module: OpId) -> R<()> {
        let entries = self.tree.entry_points.clone();
        let exported = self.exported_functions();
        if entries.is_empty() && exported.is_empty() {
            return err(None, CodegenError::NotSupported { what: "a module without an entry point".into() });
        }
        for entry in &entries {
            match entry.stage {
                Stage::Pixel
                | Stage::Vertex
                | Stage::Geometry
                | Stage::Hull
                | Stage::Domain
                | Stage::Compute => {}
                Stage::Mesh | Stage::Amplification => {
                    self.span = Some(self.ast.decl(entry.function).span);
                    self.require_mesh_shading(entry.stage)?;
                }
                other => {
                    self.span = Some(self.ast.decl(entry.function).span);
                    return self.unsupported(format!("{other:?} shaders"));
                }
            }
        }
        for entry in &entries {
            self.symbols.insert(entry.name.clone());
        }
        self.declare_globals()?;
        // A library has an entry point per `[shader("...")]` function: each its own
        // wrapper, stage variables and execution modes; built-ins of the same type
        // are shared between them (entry.rs).
        let mut emitted = Vec::new();
        for entry in &entries {
            self.entry = Some(entry.clone());
            self.stage = entry::StageState::for_next_entry(std::mem::take(&mut self.stage));
            let src = self.request_function(entry.function)?;
            self.entry_wrapper(entry, &src)?;
            while let Some(f) = self.queue.pop_front() {
                self.function(f)?;
            }
            emitted.push(EmittedEntry {
                entry: entry.clone(),
                own_interface: std::mem::take(&mut self.interface),
                modes: std::mem::take(&mut self.execution_modes),
                id_modes: std::mem::take(&mut self.id_execution_modes),
            });
        }
        self.entry = None;
        self.export_functions(&exported)?;
        self.entry = entries.first().cloned();
        self.finish_module(module, &emitted)
    }

    /// The `export` functions with a body among the top-level declarations.
    fn exported_functions(&self) -> Vec<DeclId> {
        self.ast
            .items
            .iter()
            .copied()
            .filter(|&d| {
                let decl = self.ast.decl(d);
                decl.modifiers.contains(Modifiers::EXPORT)
                    && matches!(&decl.kind, DeclKind::Function(f) if f.body.is_some())
            })
            .collect()
    }

    /// dxc emits every `export` function, called or not, under its own name with
    /// `LinkageAttributes "name" Export` (and the `Linkage` capability), so that a
    /// library (with or without entry points) can be linked with other modules.
    fn export_functions(&mut self, exported: &[DeclId]) -> R<()> {
        for &decl in exported {
            let symbol = self.request_function(decl)?;
            while let Some(f) = self.queue.pop_front() {
                self.function(f)?;
            }
            let name = match &self.ast.decl(decl).kind {
                DeclKind::Function(func) => self.ast.qualified_name_text(&func.name),
                _ => continue,
            };
            let found = self.ir.block(self.module_block).ops.iter().copied().find(|&o| {
                let op = self.ir.op(o);
                op.name == "spirv.func"
                    && matches!(op.attr("sym_name"), Some(Attribute::String(n)) if *n == symbol)
            });
            let Some(func) = found else { continue };
            self.ir.op_mut(func).attributes.push(NamedAttribute::new(
                "linkage_attributes",
                Attribute::Dialect {
                    name: "spirv.linkage_attributes".into(),
                    body: Some(format!("linkage_name = \"{name}\", linkage_type = <Export>")),
                },
            ));
            self.require("Linkage", None);
        }
        Ok(())
    }

    fn finish_module(&mut self, module: OpId, entries: &[EmittedEntry]) -> R<()> {
        self.bind_heaps();
        let mut interfaces = Vec::new();
        for emitted in entries {
            let interface = self.entry_interface(&emitted.own_interface, &emitted.entry.name);
            // Compute shaders have no stage outputs (Vulkan forbids Output variables there).
            if emitted.entry.stage == Stage::Compute
                && interface.iter().any(|name| self.global_storage_class(name).as_deref() == Some("Output"))
            {
                let span = Some(self.ast.decl(emitted.entry.function).span);
                return err(
                    span,
                    CodegenError::Rejected {
                        message: "a compute shader entry point cannot have outputs (out parameters or a return value)"
                            .to_string(),
                    },
                );
            }
            interfaces.push(interface);
        }
        self.builtin_capabilities();
        for (emitted, interface) in entries.iter().zip(interfaces) {
            let model = match emitted.entry.stage {
                Stage::Vertex => "Vertex",
                Stage::Pixel => "Fragment",
                Stage::Geometry => "Geometry",
                Stage::Hull => "TessellationControl",
                Stage::Domain => "TessellationEvaluation",
                Stage::Mesh => "MeshEXT",
                Stage::Amplification => "TaskEXT",
                _ => "GLCompute",
            };
            let interface: Vec<Attribute> = interface.iter().map(|s| symbol(s)).collect();
            builder::append(
                &mut self.ir,
                Some(self.module_block),
                "spirv.EntryPoint",
                vec![],
                None,
                vec![
                    prop("execution_model", enum_attr("execution_model", model)),
                    prop("fn", symbol(&emitted.entry.name)),
                    prop("interface", Attribute::Array(interface)),
                ],
            );
        }
        for emitted in entries {
            for (mode, values) in &emitted.modes {
                let values = builder::i32_array(self.store(), values);
                self.append_execution_mode(&emitted.entry.name, mode, values);
            }
            for (mode, values) in &emitted.id_modes {
                let values = values
                    .iter()
                    .map(|&(value, signed)| {
                        let signedness = if signed { Signedness::Signed } else { Signedness::Unsigned };
                        let ty = self.store().integer(32, signedness);
                        Attribute::Integer { value: i128::from(value as i32), ty }
                    })
                    .collect();
                self.append_execution_mode(&emitted.entry.name, mode, Attribute::Array(values));
            }
        }
        self.apply_precise();
        if self.resources.user_types {
            // dxc writes `OpDecorateStringGOOGLE` of SPV_GOOGLE_hlsl_functionality1.
            self.require_extension("SPV_GOOGLE_hlsl_functionality1");
            self.require_extension("SPV_GOOGLE_user_type");
        }
        self.sixteen_bit_storage_capabilities();
        self.width_capabilities();
        self.unknown_format_capabilities();
        let (major, minor) = self.options.spirv_version;
        let (major, minor) = if major == 0 { (1, 0) } else { (major, minor) };
        self.ir.op_mut(module).properties = vec![
            prop(
                "addressing_model",
                enum_attr(
                    "addressing_model",
                    if self.physical_addressing { "PhysicalStorageBuffer64" } else { "Logical" },
                ),
            ),
            prop("memory_model", enum_attr("memory_model", "GLSL450")),
            prop(
                "vce_triple",
                enum_attr(
                    "vce",
                    &format!(
                        "v{major}.{minor}, [{}], [{}]",
                        std::iter::once("Shader".to_string())
                            .chain(self.resources.capabilities.iter().cloned())
                            .collect::<Vec<_>>()
                            .join(", "),
                        self.resources.extensions.join(", ")
                    ),
                ),
            ),
        ];
        Ok(())
    }

    /// The capabilities (and extensions) of the built-ins the module decorates
    /// variables with, by the grammar: the serializer's requirement check leaves
    /// built-ins out, as spirv-val checks them apart.
    fn builtin_capabilities(&mut self) {
        let kind = spirvkit_grammar::OperandKind::BuiltIn;
        let builtins: Vec<String> =
            self.resources.builtins.keys().filter_map(|k| k.split(':').nth(1).map(str::to_string)).collect();
        let version = self.options.spirv_version;
        let stage = self.entry.as_ref().map(|e| e.stage);
        for b in builtins {
            // Layer and ViewportIndex before the geometry stage need their own
            // capability (VUID-Layer-Layer-04273), as dxc declares it.
            if matches!(b.as_str(), "Layer" | "ViewportIndex")
                && matches!(stage, Some(Stage::Vertex | Stage::Domain | Stage::Hull))
            {
                self.require("ShaderViewportIndexLayerEXT", Some("SPV_EXT_shader_viewport_index_layer"));
                continue;
            }
            let Some(e) = kind.info().enumerant_by_name(&b) else { continue };
            let caps: Vec<&str> = e
                .availability
                .capabilities
                .iter()
                .filter_map(|&c| spirvkit_ir::target_env::capability_name(c))
                .collect();
            if !caps.is_empty()
                && !caps.iter().any(|c| *c == "Shader" || self.resources.capabilities.iter().any(|x| x == c))
            {
                if let Some(c) = caps.iter().find(|c| **c != "Kernel").or(caps.first()) {
                    self.require(c, None);
                }
            }
            let in_core = e.availability.min_version.is_some_and(|v| (v.major, v.minor) <= version);
            if !in_core {
                if let Some(ext) = e.availability.extensions.first() {
                    self.require_extension(ext);
                }
            }
        }
    }

    /// Storage images without a format need the capabilities to read and write them
    /// (spirv-val checks them apart from the instructions).
    fn unknown_format_capabilities(&mut self) {
        let unknown = self.lower.store().kinds().any(|k| {
            matches!(k, TypeKind::Image { params, .. } if params[4] == "NoSampler" && params[5] == "Unknown" && params[0] != "SubpassData")
        });
        if unknown {
            self.require("StorageImageReadWithoutFormat", None);
            self.require("StorageImageWriteWithoutFormat", None);
        }
    }

    /// An `OpExecutionMode` of entry point `entry` at the module's end.
    fn append_execution_mode(&mut self, entry: &str, mode: &str, values: Attribute) {
        builder::append(
            &mut self.ir,
            Some(self.module_block),
            "spirv.ExecutionMode",
            vec![],
            None,
            vec![
                prop("execution_mode", enum_attr("execution_mode", mode)),
                prop("fn", symbol(entry)),
                prop("values", values),
            ],
        );
    }

    /// 16-bit values in interfaces need SPV_KHR_16bit_storage's capabilities, as dxc's
    /// CapabilityVisitor grants them: a block holding 16-bit types by its kind (push
    /// constant, uniform buffer, storage buffer) and 16-bit stage variables. dxc also
    /// names the extension for any struct with 16-bit members; it is core from SPIR-V
    /// 1.3 on.
    fn sixteen_bit_storage_capabilities(&mut self) {
        let kinds: Vec<TypeKind> = self.lower.store().kinds().cloned().collect();
        let mut needed: Vec<&str> = Vec::new();
        let mut extension = false;
        for kind in &kinds {
            match kind {
                TypeKind::Pointer { pointee, storage_class, .. } => {
                    if !self.holds_16_bit(*pointee, 0) {
                        continue;
                    }
                    let block = match self.lower.store().kind(*pointee) {
                        TypeKind::IdentifiedStruct { name } => self
                            .lower
                            .store()
                            .struct_body(name)
                            .map(|b| b.decorations.iter().map(|(d, _)| d.clone()).collect::<Vec<_>>()),
                        _ => None,
                    };
                    let is = |d: &str| block.as_ref().is_some_and(|b| b.iter().any(|x| x == d));
                    let capability = match storage_class.as_str() {
                        "Input" | "Output" => Some("StorageInputOutput16"),
                        "PushConstant" if block.is_some() => Some("StoragePushConstant16"),
                        "Uniform" if is("BufferBlock") => Some("StorageBuffer16BitAccess"),
                        "Uniform" if is("Block") => Some("UniformAndStorageBuffer16BitAccess"),
                        "StorageBuffer" if is("Block") => Some("StorageBuffer16BitAccess"),
                        _ => None,
                    };
                    if let Some(c) = capability {
                        extension = true;
                        if !needed.contains(&c) {
                            needed.push(c);
                        }
                    }
                }
                TypeKind::IdentifiedStruct { name } => {
                    let members: Vec<Type> = self
                        .lower
                        .store()
                        .struct_body(name)
                        .map(|b| b.members.iter().map(|m| m.ty).collect())
                        .unwrap_or_default();
                    if members.iter().any(|&m| self.holds_16_bit(m, 0)) {
                        extension = true;
                    }
                }
                _ => {}
            }
        }
        for c in needed {
            self.require(c, None);
        }
        if extension && self.options.spirv_version < (1, 3) {
            self.require_extension("SPV_KHR_16bit_storage");
        }
    }

    /// Whether a value of IR type `t` holds 16-bit numbers (through vectors, matrices,
    /// arrays and struct members).
    fn holds_16_bit(&self, t: Type, depth: u32) -> bool {
        if depth > 64 {
            return false;
        }
        let store = self.lower.store();
        match store.kind(t) {
            TypeKind::Integer { width: 16, .. } | TypeKind::Float(FloatKind::F16) => true,
            TypeKind::Vector { element, .. }
            | TypeKind::Matrix { column: element, .. }
            | TypeKind::Array { element, .. }
            | TypeKind::RuntimeArray { element, .. } => self.holds_16_bit(*element, depth + 1),
            TypeKind::IdentifiedStruct { name } => store
                .struct_body(name)
                .is_some_and(|b| b.members.iter().any(|m| self.holds_16_bit(m.ty, depth + 1))),
            _ => false,
        }
    }

    /// The capabilities of the scalar widths the module's types use (spirv-val checks
    /// them apart from the instructions' availability).
    fn width_capabilities(&mut self) {
        let mut needed = Vec::new();
        for kind in self.lower.store().kinds() {
            match kind {
                TypeKind::Integer { width: 64, .. } => needed.push("Int64"),
                TypeKind::Integer { width: 16, .. } => needed.push("Int16"),
                TypeKind::Integer { width: 8, .. } => needed.push("Int8"),
                TypeKind::Float(FloatKind::F64) => needed.push("Float64"),
                TypeKind::Float(FloatKind::F16) => needed.push("Float16"),
                _ => {}
            }
        }
        for c in needed {
            self.require(c, None);
        }
    }

    /// The symbol of a user function, queuing it for emission on first request.
    pub fn request_function(&mut self, decl: DeclId) -> R<String> {
        self.request_function_variant(decl, Vec::new())
    }

    /// The symbol of a user function whose pointer parameters (`this` first) are of
    /// storage classes `classes` (empty: all Function), queuing it on first request.
    pub fn request_function_variant(&mut self, decl: DeclId, mut classes: Vec<&'static str>) -> R<String> {
        let decl = self.tree.decl(decl).and_then(|d| d.definition).unwrap_or(decl);
        if classes.iter().all(|&c| c == "Function") {
            classes.clear();
        }
        let variant = FunctionVariant { decl, classes };
        if let Some(s) = self.functions.get(&variant) {
            return Ok(s.clone());
        }
        let DeclKind::Function(func) = &self.ast.decl(decl).kind else {
            return self.unsupported("a call of something that is not a function");
        };
        if func.body.is_none() {
            return self.unsupported(format!(
                "a call of function '{}' which has no definition",
                self.ast.qualified_name_text(&func.name)
            ));
        }
        // dxc's names: `Struct.method`, `ns::function`, `ns::Struct.method`.
        let mut base = func.name.last().map_or(String::new(), |n| self.name(n.name).to_string());
        if let Some(op) = base.strip_prefix("operator") {
            // dxc spells operators by clang's operator kinds (`operator.Star`).
            if let Some(kind) = operator_kind_name(op.trim()) {
                base = format!("operator.{kind}");
            }
        }
        if let Some(owner) = self.method_owner(decl) {
            if let TypeData::Struct(id) = self.data(owner) {
                if let Some(info) = self.table.struct_info(*id) {
                    base = format!("{}.{base}", info.name);
                }
            }
        }
        let namespace = self.tree.decl(decl).map_or("", |d| d.namespace.as_str());
        if !namespace.is_empty() {
            base = format!("{namespace}::{base}");
        }
        let is_entry = self.tree.entry_points.iter().any(|e| e.function == decl);
        let symbol = self.unique_symbol(&if is_entry { format!("src.{base}") } else { base });
        self.functions.insert(variant.clone(), symbol.clone());
        self.queue.push_back(variant);
        Ok(symbol)
    }

    /// The method's struct, when `decl` is a member function (`this` is its first
    /// parameter).
    pub fn method_owner(&self, decl: DeclId) -> Option<Ty> {
        if let Some(owner) = self.tree.decl(decl).and_then(|d| d.method_of) {
            return Some(owner);
        }
        let index = self.table.structs.iter().position(|s| {
            s.methods.values().any(|ms| ms.contains(&decl))
                || s.methods
                    .values()
                    .any(|ms| ms.iter().any(|&m| self.tree.decl(m).and_then(|d| d.definition) == Some(decl)))
        })?;
        self.table.lookup(&TypeData::Struct(spirvkit_hlsl::sema::types::StructId(index as u32)))
    }

    pub fn is_static_method(&self, decl: DeclId) -> bool {
        self.ast.decl(decl).modifiers.contains(Modifiers::STATIC)
    }

    /// Emits one user function: `fn(ptr params...) -> ret`.
    fn function(&mut self, variant: FunctionVariant) -> R<()> {
        let decl = variant.decl;
        let Some(symbol) = self.functions.get(&variant).cloned() else { return Ok(()) };
        let class_of = |i: usize| variant.classes.get(i).copied().unwrap_or("Function");
        let DeclKind::Function(func) = &self.ast.decl(decl).kind else { return Ok(()) };
        let func = func.clone();
        self.span = Some(self.ast.decl(decl).span);
        self.decl_inline_requirements(decl)?;
        let info = self.tree.decl(decl).cloned().unwrap_or_default();
        let ret = info.ty;
        let ret_type = if self.table.is_void(ret) { None } else { Some(self.ty(ret)?) };
        let owner = if self.is_static_method(decl) { None } else { self.method_owner(decl) };
        let mut inputs = Vec::new();
        let mut params = Vec::new();
        if let Some(owner) = owner {
            let t = self.ty(owner)?;
            inputs.push(self.pointer(t, class_of(0)));
        }
        for &p in &func.params {
            let pty = self.tree.decl(p).map_or(TypeTable::ERROR, |d| d.ty);
            let t = self.value_type_of(pty)?;
            let t = self.pointer(t, class_of(inputs.len()));
            inputs.push(t);
            params.push((p, pty));
        }
        let fn_type = self.store().function(inputs.clone(), ret_type.into_iter().collect());
        // dxc: a function at its declaration's start, a parameter at its name.
        let function_location =
            self.location_at(self.ast.decl(decl).span.file, self.ast.decl(decl).span.start as usize);
        // `[noinline]` asks the optimizer to keep the function (dxc: DontInline).
        let noinline = self
            .ast
            .decl(decl)
            .attrs
            .iter()
            .any(|a| a.namespace.is_none() && self.name(a.name.name).eq_ignore_ascii_case("noinline"));
        let control = if noinline { "DontInline" } else { "None" };
        let op = self.ir.create_op("spirv.func", vec![], &[], function_location.clone());
        self.ir.op_mut(op).properties = vec![
            prop("function_control", enum_attr("function_control", control)),
            prop("function_type", Attribute::Type(fn_type)),
            prop("sym_name", Attribute::String(symbol.clone())),
        ];
        // Inline SPIR-V decorations of a function decorate it; an entry function's
        // are its return value's (the stage variable's, entry.rs).
        if !self.tree.entry_points.iter().any(|e| e.function == decl) {
            let decorations = self.ext_decorations(decl)?;
            self.ir.op_mut(op).attributes.extend(decorations);
            for &p in &func.params {
                if !self.ext_decorations(p)?.is_empty() {
                    self.span = Some(self.ast.decl(p).span);
                    return self.unsupported(
                        "'ext_decorate' on a parameter of a function that is not the entry point",
                    );
                }
            }
        }
        self.ir.append_op(self.module_block, op);
        if self.declared_precise(decl) {
            self.precise.functions.insert(symbol.clone());
        }
        let region = self.ir.add_region(op);
        let entry = self.new_block("bb.entry");
        self.ir.append_block(region, entry);
        let mut state = FnState {
            func: op,
            entry,
            current: Some(entry),
            variables: 0,
            locals: HashMap::new(),
            headers: FxHashMap::default(),
            targets: Vec::new(),
            return_type: ret,
            this: None,
            folded_chains: Vec::new(),
            chain_roots: HashSet::new(),
            view_bases: HashSet::new(),
        };
        let mut args = inputs.iter();
        if let Some(owner) = owner {
            let t = *args.next().expect("this");
            let v = self.ir.add_block_argument(entry, t, function_location.clone());
            self.name_value(v, "param.this");
            state.this = Some(Local { ptr: v, ty: owner });
        }
        for ((p, pty), &t) in params.iter().zip(args) {
            let param = self.ast.decl(*p);
            let at = match &param.kind {
                DeclKind::Var(v) => v.name.map_or(param.span, |n| n.span),
                _ => param.span,
            };
            let location = self.location_at(at.file, at.start as usize);
            let v = self.ir.add_block_argument(entry, t, location);
            let name = self.decl_name(*p);
            self.name_value(v, name);
            if self.declared_precise(*p) {
                self.precise.values.insert(v);
            }
            state.locals.insert(*p, Local { ptr: v, ty: *pty });
        }
        let saved = self.f.replace(state);
        if !self.recursion.insert(variant) {
            return self.unsupported("recursion");
        }
        if let Some(body) = func.body {
            self.stmt(body)?;
        }
        // Falling off the end: return (void) or an undefined value (dxc does too), at
        // the body's `}`.
        if let Some(body) = func.body.filter(|_| self.has_lines()) {
            self.locate_at_last_char(self.ast.stmt(body).span);
        }
        if self.current().is_some() {
            match ret_type {
                None => self.terminate("spirv.Return", vec![], &[], Vec::new()),
                Some(t) => {
                    let u = self.undef_here(t);
                    self.terminate("spirv.ReturnValue", vec![u], &[], Vec::new());
                }
            }
        }
        self.loc = Location::Unknown;
        self.finish_function()?;
        self.f = saved;
        Ok(())
    }

    /// The IR type of a value of HLSL type `ty` held in a Function variable: the plain
    /// lowering, or for a resource, the resource's own handle type.
    pub fn value_type_of(&mut self, ty: Ty) -> R<Type> {
        self.ty(ty)
    }

    /// Structurizes the finished function's CFG.
    pub fn finish_function(&mut self) -> R<()> {
        let f = self.f.as_ref().expect("inside a function");
        let (func, headers) = (f.func, f.headers.clone());
        self.remove_folded_chains(func);
        self.remove_unreachable_blocks(func);
        // The structurizer makes types (its guard flags' i1) in the IR's store, which
        // during codegen lives in the type lowering: lend it to the IR meanwhile.
        std::mem::swap(&mut self.ir.types, self.lower.store_mut());
        let structurized = spirvkit_translate::structurize::structurize(&mut self.ir, func, &headers);
        std::mem::swap(&mut self.ir.types, self.lower.store_mut());
        if let Err(e) = structurized {
            return err(
                self.span,
                CodegenError::NotSupported { what: format!("control flow the structurizer refused: {e}") },
            );
        }
        Ok(())
    }

    /// Blocks never entered (after a `return` in both branches, say) have no
    /// terminator; they are dropped, with the headers naming them repaired.
    fn remove_unreachable_blocks(&mut self, func: OpId) {
        let region = self.ir.op(func).regions[0];
        let blocks = self.ir.region(region).blocks.clone();
        // A block whose last op is not a terminator was left open: close it.
        for &b in &blocks {
            let last = self.ir.block(b).ops.last().copied();
            // Terminators the dialect lacks (fallback ops) end their block too.
            let terminated = last.is_some_and(|op| {
                let name = &self.ir.op(op).name;
                name.def().is_some_and(|d| d.has_trait("Terminator"))
                    || name.as_str() == "spirv.EmitMeshTasksEXT"
            });
            if !terminated {
                let (op, _) =
                    builder::append(&mut self.ir, Some(b), "spirv.Unreachable", vec![], None, Vec::new());
                let _ = op;
            }
        }
    }

    pub fn decl_name(&self, decl: DeclId) -> String {
        match &self.ast.decl(decl).kind {
            DeclKind::Var(v) => v.name.map_or_else(String::new, |n| self.name(n.name).to_string()),
            DeclKind::Function(f) => f.name.last().map_or(String::new(), |n| self.name(n.name).to_string()),
            DeclKind::Buffer { name, .. } => self.name(name.name).to_string(),
            _ => String::new(),
        }
    }

    // ---- globals -------------------------------------------------------------------

    fn declare_globals(&mut self) -> R<()> {
        let items = self.ast.items.clone();
        let mut globals = Vec::new();
        self.collect_globals(&items, &mut globals, 0);
        for &g in &globals {
            self.decl_inline_requirements(g)?;
            // Decorations of a resource or of a `$Globals` member are not written yet.
            let static_or_shared =
                matches!(self.global_storage(g), Some(GlobalStorage::Static | GlobalStorage::GroupShared));
            if !static_or_shared && !self.ext_decorations(g)?.is_empty() {
                self.span = Some(self.ast.decl(g).span);
                return self.unsupported("'ext_decorate' on a resource or a global in $Globals");
            }
        }
        self.resources_declare(&globals)?;
        Ok(())
    }

    fn collect_globals(&self, items: &[DeclId], out: &mut Vec<DeclId>, depth: u32) {
        if depth > 64 {
            return;
        }
        for &d in items {
            match &self.ast.decl(d).kind {
                DeclKind::Var(_) | DeclKind::Buffer { .. } => out.push(d),
                DeclKind::Namespace { decls, .. } => self.collect_globals(decls, out, depth + 1),
                _ => {}
            }
        }
    }

    /// A module-level variable.
    pub fn global_variable(
        &mut self,
        symbol_name: &str,
        ptr_type: Type,
        decorations: Vec<NamedAttribute>,
    ) -> OpId {
        let mut props = vec![
            prop("sym_name", Attribute::String(symbol_name.to_string())),
            prop("type", Attribute::Type(ptr_type)),
        ];
        props.extend(decorations);
        let (op, _) = builder::append(&mut self.ir, None, "spirv.GlobalVariable", vec![], None, props);
        // Globals go before the functions (the serializer meets them first).
        self.place_before_functions(op);
        op
    }

    /// Moves a module-level op (just appended) before the first function: globals and
    /// constants are declared before the functions that use them.
    pub(crate) fn place_before_functions(&mut self, op: OpId) {
        let first_function = self
            .ir
            .block(self.module_block)
            .ops
            .iter()
            .copied()
            .find(|&o| self.ir.op(o).name == "spirv.func");
        match first_function {
            Some(f) => self.ir.insert_op_before(self.module_block, f, op),
            None => self.ir.append_op(self.module_block, op),
        }
    }

    /// The storage of a global (`GlobalStorage` of sema).
    pub fn global_storage(&self, decl: DeclId) -> Option<GlobalStorage> {
        self.tree.decl(decl).and_then(|d| d.storage)
    }

    pub fn param_direction(&self, decl: DeclId) -> ParamDirection {
        self.tree.decl(decl).and_then(|d| d.direction).unwrap_or(ParamDirection::In)
    }

    pub fn expr_ty(&self, e: ExprId) -> Ty {
        self.tree.expr(e).map_or(TypeTable::ERROR, |i| i.ty)
    }
}

/// `v` rounded to the nearest half-precision value.
fn half_round(v: f32) -> f32 {
    if !v.is_finite() {
        return v;
    }
    let bits = v.to_bits();
    let exp = ((bits >> 23) & 0xff) as i32 - 127;
    if exp > 15 {
        return if v > 0.0 { f32::INFINITY } else { f32::NEG_INFINITY };
    }
    if exp < -24 {
        return 0.0 * v.signum();
    }
    let keep = if exp < -14 { 10 - (-14 - exp) } else { 10 };
    let drop = 23 - keep.max(0);
    let mask = (1u32 << drop) - 1;
    let half = 1u32 << (drop - 1);
    let mut m = bits & !mask;
    let rest = bits & mask;
    if rest > half || (rest == half && (bits >> drop) & 1 == 1) {
        m = m.wrapping_add(1 << drop);
    }
    f32::from_bits(m)
}

/// Clang's name of an overloadable operator (`*` -> `Star`), which dxc's function
/// names use.
fn operator_kind_name(spelling: &str) -> Option<&'static str> {
    Some(match spelling {
        "+" => "Plus",
        "-" => "Minus",
        "*" => "Star",
        "/" => "Slash",
        "%" => "Percent",
        "^" => "Caret",
        "&" => "Amp",
        "|" => "Pipe",
        "~" => "Tilde",
        "!" => "Exclaim",
        "=" => "Equal",
        "<" => "Less",
        ">" => "Greater",
        "+=" => "PlusEqual",
        "-=" => "MinusEqual",
        "*=" => "StarEqual",
        "/=" => "SlashEqual",
        "%=" => "PercentEqual",
        "^=" => "CaretEqual",
        "&=" => "AmpEqual",
        "|=" => "PipeEqual",
        "<<" => "LessLess",
        ">>" => "GreaterGreater",
        "<<=" => "LessLessEqual",
        ">>=" => "GreaterGreaterEqual",
        "==" => "EqualEqual",
        "!=" => "ExclaimEqual",
        "<=" => "LessEqual",
        ">=" => "GreaterEqual",
        "&&" => "AmpAmp",
        "||" => "PipePipe",
        "++" => "PlusPlus",
        "--" => "MinusMinus",
        "," => "Comma",
        "()" => "Call",
        "[]" => "Subscript",
        _ => return None,
    })
}
