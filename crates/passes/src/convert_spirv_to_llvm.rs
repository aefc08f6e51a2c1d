//! `-convert-spirv-to-llvm`: the SPIR-V dialect lowered to the LLVM dialect, as MLIR
//! 22's `ConvertSPIRVToLLVMPass` does it (seed 000 is its manual), plus what real
//! compute shaders need beyond it (see `ConvertOptions::kernel`).
//!
//! LLVM dialect ops are created by name in MLIR 22's generic form (properties named as
//! in `LLVMOps.td`), so that registering the dialect changes only how they print.
//!
//! The conversion rebuilds each function: a `spirv.mlir.selection` or
//! `spirv.mlir.loop` ends the block it is in, its region's blocks follow (the
//! selection header's or loop entry's ops go into the current block, as MLIR's
//! patterns merge them) and a new block continues after the construct, so the block
//! order is MLIR's. Values map old -> new; a use seen before its definition (block
//! order is not dominance order) gets a placeholder patched once the function is done.
//!
//! Parts: `types` (the type converter and layouts), `ops` (op patterns), `calls`
//! (barriers, group and non-uniform ops as `__spirv_*` calls), `glsl` (GLSL.std.450),
//! `array_length` (runtime-array lengths from the bound buffer's size).

mod array_length;
mod calls;
mod glsl;
pub mod images;
mod ops;
mod types;

use spirvkit_grammar::fxhash::{FxHashMap, FxHashSet};
use spirvkit_ir::attr::Attribute;
use spirvkit_ir::diag::{current_operation_note, Diagnostic, LineIndex};
use spirvkit_ir::ir::{BlockId, Ir, Location, OpId, RegionId, Value, ValueDef};
use spirvkit_ir::types::{Signedness, Type, TypeKind};

/// How deep selections and loops may nest.
const MAX_CONSTRUCT_DEPTH: usize = 512;

/// The client API whose storage class -> address space mapping is used (MLIR's
/// `client-api` option).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ClientApi {
    #[default]
    Unknown,
    Metal,
    OpenCl,
    Vulkan,
    WebGpu,
}

impl ClientApi {
    fn name(self) -> &'static str {
        match self {
            ClientApi::Unknown => "Unknown",
            ClientApi::Metal => "Metal",
            ClientApi::OpenCl => "OpenCL",
            ClientApi::Vulkan => "Vulkan",
            ClientApi::WebGpu => "WebGPU",
        }
    }
}

/// The conversion's options. `Default` is MLIR 22's pass; [`ConvertOptions::kernel`]
/// is what the CPU pipeline uses.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct ConvertOptions {
    pub client_api: ClientApi,
    /// Structs with explicit offsets and arrays with strides that are not natural
    /// (std140/std430 `Block`s) become LLVM structs with padding members, with member
    /// indices remapped; `Block` structs and strided runtime arrays are taken. MLIR
    /// refuses them (`spirv-types-to-llvm-invalid.mlir`).
    pub explicit_layout: bool,
    /// Bound globals keep their symbol name (MLIR renames them
    /// `<module>_<name>_descriptor_set<S>_binding<B>`).
    pub keep_global_names: bool,
    /// Globals of every storage class convert (MLIR 22 takes Input, Output, Private,
    /// StorageBuffer and UniformConstant only: not Uniform, PushConstant, Workgroup).
    pub all_storage_classes: bool,
    /// Storage images (`NoSampler` images of 1D, 2D, 3D or 1D/2D arrays in a format with
    /// a lowering) convert to a pointer to their descriptor's memory, and `ImageRead`,
    /// `ImageWrite` and `ImageQuerySize` on them to texel accesses (see [`images`]). MLIR
    /// refuses images.
    pub storage_images: bool,
    /// The formats of images bound at (set, binding) (SPIR-V names, `Rgba8`): what an
    /// image of `Unknown` format is.
    pub image_formats: Vec<(u32, u32, String)>,
    /// `spirv.ArrayLength` converts to the element count that fits in the bound buffer:
    /// its size in bytes comes from a call of [`BUFFER_BYTES_FUNCTION`] on the buffer's
    /// address, which the CPU kernel pass replaces with the size of the descriptor the
    /// address points into. MLIR has no lowering of it.
    pub buffer_lengths: bool,
}

/// `i64 @spirvkit_buffer_bytes(ptr)`: the size in bytes of the buffer a pointer points
/// into (see [`ConvertOptions::buffer_lengths`]); never a real function.
pub const BUFFER_BYTES_FUNCTION: &str = "spirvkit_buffer_bytes";

impl ConvertOptions {
    /// The options of the CPU pipeline (session 5's contract): every global keeps its
    /// symbol name, std140/std430 layouts are converted with padding, storage images and
    /// runtime-array lengths are lowered.
    pub fn kernel() -> Self {
        ConvertOptions {
            client_api: ClientApi::Unknown,
            explicit_layout: true,
            keep_global_names: true,
            all_storage_classes: true,
            storage_images: true,
            image_formats: Vec::new(),
            buffer_lengths: true,
        }
    }
}

/// A conversion failure: the message, where, and the op it is about.
#[derive(Clone, Debug, thiserror::Error)]
#[error("{message}")]
pub struct ConvertError {
    pub message: String,
    pub location: Location,
    pub op: Option<OpId>,
}

/// Converts everything under `top` (a `builtin.module`). Returns the warnings MLIR
/// emits (an unimplemented client API) or the first error.
pub fn convert(ir: &mut Ir, top: OpId, options: &ConvertOptions) -> Result<Vec<ConvertError>, ConvertError> {
    let mut warnings = Vec::new();
    if matches!(options.client_api, ClientApi::Metal | ClientApi::Vulkan | ClientApi::WebGpu) {
        warnings.push(ConvertError {
            message: format!(
                "address space mapping for client '{}' not implemented",
                options.client_api.name()
            ),
            location: ir.op(top).location.clone(),
            op: Some(top),
        });
    }
    let mut converter = Converter::new(ir, options);
    let blocks: Vec<BlockId> =
        converter.ir.op(top).regions.iter().flat_map(|&r| converter.ir.region(r).blocks.clone()).collect();
    for block in blocks {
        converter.convert_symbol_table_body(block, "")?;
    }
    Ok(warnings)
}

/// Converts a detached `spirv.module` (as `spirvkit_translate::deserialize` returns
/// it) and returns the detached `builtin.module` it became: the entry point of the
/// CPU pipeline (with [`ConvertOptions::kernel`]).
pub fn convert_spirv_module(
    ir: &mut Ir,
    module: OpId,
    options: &ConvertOptions,
) -> Result<OpId, ConvertError> {
    if ir.op(module).parent.is_some() || ir.op(module).name != "spirv.module" {
        return Err(ConvertError {
            message: "convert_spirv_module expects a detached spirv.module".into(),
            location: ir.op(module).location.clone(),
            op: Some(module),
        });
    }
    let holder = ir.create_op("builtin.module", vec![], &[], Location::Unknown);
    let region = ir.add_region(holder);
    let body = ir.create_block();
    ir.append_block(region, body);
    ir.append_op(body, module);
    convert(ir, holder, options)?;
    let converted = ir.block(body).ops.first().copied().ok_or_else(|| ConvertError {
        message: "the conversion left no module".into(),
        location: Location::Unknown,
        op: None,
    })?;
    ir.erase_op(converted);
    Ok(converted)
}

/// The pass as `spirvkit opt` runs it: diagnostics located in `text`. `Ok` holds
/// warnings; `Err` the error that stopped the conversion.
pub fn run(
    ir: &mut Ir,
    top: OpId,
    options: &ConvertOptions,
    text: &str,
) -> Result<Vec<Diagnostic>, Vec<Diagnostic>> {
    let index = LineIndex::new(text);
    // Errors are reported on the IR as it was (MLIR rolls back a failed conversion).
    let before = ir.clone();
    match convert(ir, top, options) {
        Ok(warnings) => Ok(warnings
            .into_iter()
            .map(|w| Diagnostic::warning(index.location_offset(&w.location), w.message))
            .collect()),
        Err(e) => {
            let offset = index.location_offset(&e.location);
            let mut d = Diagnostic::error(offset, e.message);
            if let Some(op) = e.op.filter(|op| op.index() < before.op_count()) {
                d = d.with_note(offset, current_operation_note(&before, op));
            }
            *ir = before;
            Err(vec![d])
        }
    }
}

/// `--lower-host-to-llvm` on a module without GPU launches: each `spirv.module`'s
/// functions renamed `<module name or __spv__>_<name>` (with their entry points and
/// execution modes), as MLIR's pass encodes kernel names.
pub fn lower_host_to_llvm(ir: &mut Ir, top: OpId) {
    let modules: Vec<OpId> = ir
        .ops_under(top)
        .into_iter()
        .map(|(_, op)| op)
        .filter(|&op| ir.op(op).name == "spirv.module")
        .collect();
    for module in modules {
        let prefix = match ir.op(module).attr("sym_name") {
            Some(Attribute::String(name)) => name.clone(),
            _ => "__spv__".to_string(),
        };
        let inner: Vec<OpId> = ir.ops_under(module).into_iter().map(|(_, op)| op).collect();
        let mut renamed: FxHashMap<String, String> = FxHashMap::default();
        for &op in &inner {
            if ir.op(op).name == "spirv.func" {
                if let Some(Attribute::String(name)) = ir.op(op).attr("sym_name").cloned() {
                    let new = format!("{prefix}_{name}");
                    ir.set_property(op, "sym_name", Attribute::String(new.clone()));
                    renamed.insert(name, new);
                }
            }
        }
        for &op in &inner {
            for key in ["fn", "callee"] {
                if let Some(Attribute::SymbolRef(path)) = ir.op(op).attr(key).cloned() {
                    if let Some(new) = path.last().and_then(|n| renamed.get(n)) {
                        let mut path = path.clone();
                        *path.last_mut().expect("not empty") = new.clone();
                        ir.set_property(op, key, Attribute::SymbolRef(path));
                    }
                }
            }
        }
    }
}

pub(crate) struct Converter<'a> {
    pub(crate) ir: &'a mut Ir,
    pub(crate) options: &'a ConvertOptions,
    values: FxHashMap<Value, Value>,
    blocks: FxHashMap<BlockId, BlockId>,
    /// Values handed out for uses seen before their definition...
    placeholders: FxHashSet<Value>,
    /// ...and what each stands for once defined.
    patches: FxHashMap<Value, Value>,
    /// The block each enclosing construct continues in (`spirv.mlir.merge` branches to
    /// the innermost).
    merge_targets: Vec<BlockId>,
    /// The block new ops go to, and the location they get.
    pub(crate) cur: BlockId,
    pub(crate) loc: Location,
    /// The body of the nearest symbol table (declarations and execution-mode globals
    /// are inserted at its start, as MLIR does).
    pub(crate) symbol_table: BlockId,
    /// Symbols already declared in each symbol table.
    declared: FxHashMap<BlockId, FxHashSet<String>>,
    /// Global symbol renames of the current `spirv.module` (bound globals).
    pub(crate) global_names: FxHashMap<String, String>,
    /// Types of `spirv.SpecConstant`s, by symbol.
    pub(crate) spec_constant_types: FxHashMap<String, Type>,
    /// Integer default values of `spirv.SpecConstant`s, by symbol.
    pub(crate) spec_constant_values: FxHashMap<String, i128>,
    pub(crate) type_cache: FxHashMap<Type, Option<Type>>,
    /// Index remaps of explicitly laid-out SPIR-V composites (see `types`).
    pub(crate) remaps: FxHashMap<Type, types::Remap>,
    /// Matrix members whose memory is not the column arrays a matrix value is (RowMajor,
    /// or a MatrixStride other than the column's size), by (struct type, member index):
    /// access chains reorder their indices, loads gather (see `types::MatrixLayout`).
    pub(crate) laid_out_matrices: FxHashMap<(Type, usize), types::MatrixLayout>,
    /// New pointers to a laid-out matrix or to a RowMajor matrix's (strided) column: only
    /// `spirv.Load` may use them.
    pub(crate) laid_out_pointers: FxHashMap<Value, types::LaidOutPointer>,
    /// Image globals of `Unknown` format by symbol: the format bound to them.
    pub(crate) image_formats_by_symbol: FxHashMap<String, String>,
}

impl<'a> Converter<'a> {
    fn new(ir: &'a mut Ir, options: &'a ConvertOptions) -> Self {
        // Stand-ins until the first symbol table and block are entered.
        let scratch = ir.create_block();
        for width in [1, 8, 16, 32, 64] {
            ir.types.integer(width, Signedness::Signless);
        }
        Converter {
            ir,
            options,
            values: FxHashMap::default(),
            blocks: FxHashMap::default(),
            placeholders: FxHashSet::default(),
            patches: FxHashMap::default(),
            merge_targets: Vec::new(),
            cur: scratch,
            loc: Location::Unknown,
            symbol_table: scratch,
            declared: FxHashMap::default(),
            global_names: FxHashMap::default(),
            spec_constant_types: FxHashMap::default(),
            spec_constant_values: FxHashMap::default(),
            type_cache: FxHashMap::default(),
            remaps: FxHashMap::default(),
            laid_out_matrices: FxHashMap::default(),
            laid_out_pointers: FxHashMap::default(),
            image_formats_by_symbol: FxHashMap::default(),
        }
    }

    pub(crate) fn error(&self, op: OpId, message: impl Into<String>) -> ConvertError {
        ConvertError { message: message.into(), location: self.ir.op(op).location.clone(), op: Some(op) }
    }

    /// MLIR's dialect-conversion failure for an op it has a pattern for that did not apply.
    pub(crate) fn illegal(&self, op: OpId) -> ConvertError {
        let name = self.ir.op(op).name.to_string();
        self.error(op, format!("failed to legalize operation '{name}' that was explicitly marked illegal"))
    }

    /// An op without a lowering yet.
    pub(crate) fn unsupported(&self, op: OpId) -> ConvertError {
        let name = self.ir.op(op).name.to_string();
        self.error(op, format!("not supported yet: {name}"))
    }

    // ---- building ops ----------------------------------------------------------------

    /// Creates an op at the end of the current block.
    pub(crate) fn emit(
        &mut self,
        name: &str,
        operands: Vec<Value>,
        results: &[Type],
        properties: Vec<(&str, Attribute)>,
    ) -> OpId {
        let op = self.ir.create_op(name, operands, results, self.loc.clone());
        for (key, value) in properties {
            self.ir.set_property(op, key, value);
        }
        self.ir.append_op(self.cur, op);
        op
    }

    /// [`Converter::emit`] of an op with one result, which it returns.
    pub(crate) fn emit_value(
        &mut self,
        name: &str,
        operands: Vec<Value>,
        result: Type,
        properties: Vec<(&str, Attribute)>,
    ) -> Value {
        let op = self.emit(name, operands, &[result], properties);
        self.ir.op(op).results[0]
    }

    pub(crate) fn int_type(&mut self, width: u32) -> Type {
        self.ir.types.integer(width, Signedness::Signless)
    }

    /// `value : iN` (`N` among the widths interned when the converter was made).
    pub(crate) fn int_attr(&self, value: i128, width: u32) -> Attribute {
        let ty = self
            .ir
            .types
            .find(&TypeKind::Integer { width, signedness: Signedness::Signless })
            .expect("i1, i8, i16, i32 and i64 are interned by Converter::new");
        Attribute::Integer { value, ty }
    }

    /// `llvm.mlir.constant(value : iN) : iN`.
    pub(crate) fn const_int(&mut self, value: i128, width: u32) -> Value {
        let ty = self.int_type(width);
        let value = self.ir.types.normalize_integer(value, ty);
        self.emit_value("llvm.mlir.constant", vec![], ty, vec![("value", Attribute::Integer { value, ty })])
    }

    /// A constant of `ty` (an integer, float or vector of them; vectors splat).
    pub(crate) fn const_of_type(&mut self, ty: Type, integer: i128, float: f64) -> Value {
        let element = self.ir.types.scalar_of(ty);
        let scalar = match self.ir.types.kind(element) {
            TypeKind::Float(_) => Attribute::Float { value: float, ty: element },
            TypeKind::Integer { width: 1, .. } => Attribute::Bool(integer != 0),
            _ => Attribute::Integer { value: self.ir.types.normalize_integer(integer, element), ty: element },
        };
        let value = if element == ty { scalar } else { Attribute::Dense { elements: vec![scalar], ty } };
        self.emit_value("llvm.mlir.constant", vec![], ty, vec![("value", value)])
    }

    pub(crate) fn fastmath_none() -> Attribute {
        dialect_attr("llvm.fastmath", "none")
    }

    // ---- values and blocks -----------------------------------------------------------

    /// The new value standing for old value `old` (a placeholder if it is not yet
    /// defined).
    pub(crate) fn value(&mut self, old: Value) -> Result<Value, ConvertError> {
        if let Some(&v) = self.values.get(&old) {
            return Ok(v);
        }
        let old_ty = self.ir.value_type(old);
        let ty = self.convert_type(old_ty).ok_or_else(|| ConvertError {
            message: "failed to convert the type of a value".into(),
            location: self.loc.clone(),
            op: None,
        })?;
        let holder = self.ir.create_op("spirvkit.placeholder", vec![], &[ty], Location::Unknown);
        let v = self.ir.op(holder).results[0];
        self.values.insert(old, v);
        self.placeholders.insert(v);
        Ok(v)
    }

    pub(crate) fn operands(&mut self, op: OpId) -> Result<Vec<Value>, ConvertError> {
        let old = self.ir.op(op).operands.clone();
        let new: Vec<Value> = old.into_iter().map(|v| self.value(v)).collect::<Result<_, _>>()?;
        // A pointer into a laid-out matrix is not an address of its pointee's value form.
        if !self.laid_out_pointers.is_empty()
            && self.ir.op(op).name != "spirv.Load"
            && new.iter().any(|v| self.laid_out_pointers.contains_key(v))
        {
            return Err(self.error(
                op,
                format!(
                    "not supported yet: {} of a whole RowMajor or strided matrix, or of a RowMajor matrix's column",
                    self.ir.op(op).name.as_str()
                ),
            ));
        }
        Ok(new)
    }

    pub(crate) fn map_value(&mut self, old: Value, new: Value) {
        if let Some(previous) = self.values.insert(old, new) {
            // A placeholder handed out earlier: patched to `new` once the function is done.
            if previous != new && self.placeholders.contains(&previous) {
                self.patches.insert(previous, new);
            }
        }
    }

    /// The new block of old block `old` (created on first use, with its arguments).
    fn block(&mut self, old: BlockId) -> Result<BlockId, ConvertError> {
        if let Some(&b) = self.blocks.get(&old) {
            return Ok(b);
        }
        let new = self.ir.create_block();
        self.blocks.insert(old, new);
        let args = self.ir.block(old).arguments.clone();
        let locs = self.ir.block(old).argument_locations.clone();
        for (i, arg) in args.into_iter().enumerate() {
            let old_ty = self.ir.value_type(arg);
            let ty = self.convert_type(old_ty).ok_or_else(|| ConvertError {
                message: "failed to convert the type of a block argument".into(),
                location: locs.get(i).cloned().unwrap_or_default(),
                op: None,
            })?;
            let v = self.ir.add_block_argument(new, ty, locs.get(i).cloned().unwrap_or_default());
            self.map_value(arg, v);
        }
        Ok(new)
    }

    /// Sets the successors of a new branch op to the new blocks of `old`.
    pub(crate) fn set_successors(&mut self, op: OpId, old: &[BlockId]) -> Result<(), ConvertError> {
        for &b in old {
            let new = self.block(b)?;
            self.ir.op_mut(op).successors.push(new);
        }
        Ok(())
    }

    // ---- symbol tables ---------------------------------------------------------------

    /// Inserts `op` at the start of the current symbol table's body.
    pub(crate) fn insert_at_symbol_table_start(&mut self, op: OpId) {
        let body = self.symbol_table;
        match self.ir.block(body).ops.first().copied() {
            Some(first) => self.ir.insert_op_before(body, first, op),
            None => self.ir.append_op(body, op),
        }
    }

    /// Whether `name` is (or was just) declared in the current symbol table; records it.
    pub(crate) fn declare_once(&mut self, name: &str) -> bool {
        let table = self.symbol_table;
        if !self.declared.contains_key(&table) {
            let mut names = FxHashSet::default();
            for &op in &self.ir.block(table).ops {
                if let Some(Attribute::String(n)) = self.ir.op(op).attr("sym_name") {
                    names.insert(n.clone());
                }
            }
            self.declared.insert(table, names);
        }
        !self.declared.get_mut(&table).expect("inserted above").insert(name.to_string())
    }

    /// Converts the ops of a module body in place: `spirv.module`s become
    /// `builtin.module`s, functions and globals are lowered, other ops kept (their
    /// regions converted).
    fn convert_symbol_table_body(&mut self, body: BlockId, module_name: &str) -> Result<(), ConvertError> {
        let old_ops = std::mem::take(&mut self.ir.block_mut(body).ops);
        let saved_table = self.symbol_table;
        self.symbol_table = body;
        self.declared.remove(&body);
        // Bound globals are renamed before any use is converted.
        let saved_names = std::mem::take(&mut self.global_names);
        for &op in &old_ops {
            if self.ir.op(op).name == "spirv.GlobalVariable" && !self.options.keep_global_names {
                let o = self.ir.op(op);
                if let (
                    Some(Attribute::String(name)),
                    Some(Attribute::Integer { value: set, .. }),
                    Some(Attribute::Integer { value: binding, .. }),
                ) = (o.attr("sym_name"), o.attr("descriptor_set"), o.attr("binding"))
                {
                    let prefix =
                        if module_name.is_empty() { String::new() } else { format!("{module_name}_") };
                    let new = format!("{prefix}{name}_descriptor_set{set}_binding{binding}");
                    self.global_names.insert(name.clone(), new);
                }
            }
            if self.ir.op(op).name == "spirv.SpecConstant" {
                if let (Some(Attribute::String(name)), Some(value)) =
                    (self.ir.op(op).attr("sym_name").cloned(), self.ir.op(op).attr("default_value").cloned())
                {
                    if let Attribute::Integer { value, .. } = &value {
                        self.spec_constant_values.insert(name.clone(), *value);
                    }
                    if let Some(ty) = attribute_type(&value, self.ir) {
                        self.spec_constant_types.insert(name, ty);
                    }
                }
            }
        }
        for op in old_ops {
            self.ir.op_mut(op).parent = None;
            self.loc = self.ir.op(op).location.clone();
            let name = self.ir.op(op).name.to_string();
            match name.as_str() {
                "spirv.module" => {
                    let module = self.ir.create_op("builtin.module", vec![], &[], self.loc.clone());
                    let sym = self.ir.op(op).attr("sym_name").cloned();
                    if let Some(sym) = &sym {
                        self.ir.set_property(module, "sym_name", sym.clone());
                    }
                    self.ir.append_op(body, module);
                    let regions = std::mem::take(&mut self.ir.op_mut(op).regions);
                    for &r in &regions {
                        self.ir.region_mut(r).parent = Some(module);
                        self.ir.op_mut(module).regions.push(r);
                    }
                    let name = match sym {
                        Some(Attribute::String(s)) => s,
                        _ => String::new(),
                    };
                    for r in regions {
                        let blocks = self.ir.region(r).blocks.clone();
                        for b in blocks {
                            self.convert_symbol_table_body(b, &name)?;
                        }
                    }
                }
                "spirv.func" => {
                    let f = self.convert_function(op)?;
                    self.ir.append_op(body, f);
                }
                "spirv.GlobalVariable" => {
                    let g = self.convert_global_variable(op)?;
                    self.ir.append_op(body, g);
                }
                "spirv.SpecConstant" => {
                    let g = self.convert_spec_constant(op)?;
                    self.ir.append_op(body, g);
                }
                "spirv.EntryPoint" => {}
                "spirv.ExecutionMode" => {
                    let g = self.convert_execution_mode(op)?;
                    self.insert_at_symbol_table_start(g);
                }
                _ if name.starts_with("spirv.") => return Err(self.unsupported(op)),
                _ => {
                    self.ir.append_op(body, op);
                    let regions = self.ir.op(op).regions.clone();
                    for r in regions {
                        let blocks = self.ir.region(r).blocks.clone();
                        for b in blocks {
                            self.convert_symbol_table_body(b, "")?;
                        }
                    }
                }
            }
        }
        self.symbol_table = saved_table;
        self.global_names = saved_names;
        Ok(())
    }

    // ---- functions and control flow --------------------------------------------------

    fn convert_function(&mut self, op: OpId) -> Result<OpId, ConvertError> {
        let Some(Attribute::Type(fn_ty)) = self.ir.op(op).attr("function_type").cloned() else {
            return Err(self.illegal(op));
        };
        let TypeKind::Function { inputs, results } = self.ir.types.kind(fn_ty).clone() else {
            return Err(self.illegal(op));
        };
        let mut params = Vec::with_capacity(inputs.len());
        for t in inputs {
            params.push(self.convert_type(t).ok_or_else(|| self.illegal(op))?);
        }
        let result = match results.first() {
            Some(&t) => self.convert_type(t).ok_or_else(|| self.illegal(op))?,
            None => self.ir.types.llvm_void(),
        };
        let llvm_fn_ty = self.ir.types.llvm_function(result, params, false);
        let loc = self.ir.op(op).location.clone();
        self.loc = loc.clone();
        let f = self.ir.create_op("llvm.func", vec![], &[], loc.clone());
        let mut props = vec![
            ("CConv", dialect_attr("llvm.cconv", "ccc")),
            ("function_type", Attribute::Type(llvm_fn_ty)),
            ("linkage", dialect_attr("llvm.linkage", "external")),
            ("visibility_", self.int_attr(0, 64)),
        ];
        if let Some(name) = self.ir.op(op).attr("sym_name").cloned() {
            props.push(("sym_name", name));
        }
        let control = match self.ir.op(op).attr("function_control") {
            Some(Attribute::Dialect { body: Some(b), .. }) => b.clone(),
            _ => String::new(),
        };
        for flag in control.split('|').map(str::trim) {
            match flag {
                "Inline" => props.push(("always_inline", Attribute::Unit)),
                "DontInline" => props.push(("no_inline", Attribute::Unit)),
                "Pure" => {
                    props.push(("passthrough", Attribute::Array(vec![Attribute::String("readonly".into())])))
                }
                "Const" => {
                    props.push(("passthrough", Attribute::Array(vec![Attribute::String("readnone".into())])))
                }
                _ => {}
            }
        }
        for (k, v) in props {
            self.ir.set_property(f, k, v);
        }
        let new_region = self.ir.add_region(f);
        let Some(&old_region) = self.ir.op(op).regions.first() else { return Ok(f) };
        let old_blocks = self.ir.region(old_region).blocks.clone();
        self.values.clear();
        self.blocks.clear();
        self.placeholders.clear();
        self.patches.clear();
        self.merge_targets.clear();
        self.lower_blocks(new_region, &old_blocks)?;
        self.patch_placeholders(f, op)?;
        Ok(f)
    }

    /// Lowers `old_blocks` into `region`, in order (constructs inside them add their
    /// blocks after the block they are in).
    fn lower_blocks(&mut self, region: RegionId, old_blocks: &[BlockId]) -> Result<(), ConvertError> {
        for &b in old_blocks {
            self.block(b)?;
        }
        for &b in old_blocks {
            let new = self.block(b)?;
            self.ir.append_block(region, new);
            self.cur = new;
            let ops = self.ir.block(b).ops.clone();
            for op in ops {
                self.loc = self.ir.op(op).location.clone();
                self.lower_op(op, region)?;
            }
        }
        Ok(())
    }

    /// Lowers a `spirv.mlir.selection` or `spirv.mlir.loop` into `region`.
    fn lower_construct(&mut self, op: OpId, region: RegionId) -> Result<(), ConvertError> {
        let is_loop = self.ir.op(op).name == "spirv.mlir.loop";
        let Some(&body) = self.ir.op(op).regions.first() else { return Ok(()) };
        let blocks = self.ir.region(body).blocks.clone();
        if blocks.is_empty() {
            return Ok(());
        }
        let results = self.ir.op(op).results.clone();
        let first_ops = self.ir.block(blocks[0]).ops.clone();
        // MLIR erases a selection of a header and a merge block alone.
        if !is_loop && blocks.len() <= 2 && first_ops.len() == 1 && results.is_empty() {
            let merge_ops = &self.ir.block(*blocks.last().expect("not empty")).ops;
            if merge_ops.len() == 1 && self.ir.op(merge_ops[0]).operands.is_empty() {
                return Ok(());
            }
        }
        // The block after the construct, with the construct's results as arguments.
        let cont = self.ir.create_block();
        for &r in &results {
            let old_ty = self.ir.value_type(r);
            let ty = self.convert_type(old_ty).ok_or_else(|| self.illegal(op))?;
            let v = self.ir.add_block_argument(cont, ty, self.loc.clone());
            self.map_value(r, v);
        }
        // Constructs nest as deep as the input does: bounded, so that IR built in
        // memory (not parsed, which bounds nesting) cannot overflow the stack.
        if self.merge_targets.len() >= MAX_CONSTRUCT_DEPTH {
            return Err(self.error(
                op,
                format!("not supported yet: constructs nested deeper than {MAX_CONSTRUCT_DEPTH}"),
            ));
        }
        self.merge_targets.push(cont);
        // The header (selection) or entry (loop) block's ops continue the current block.
        if !self.ir.block(blocks[0]).arguments.is_empty() {
            return Err(self.unsupported(op));
        }
        for op in first_ops {
            self.loc = self.ir.op(op).location.clone();
            self.lower_op(op, region)?;
        }
        self.lower_blocks(region, &blocks[1..])?;
        self.merge_targets.pop();
        self.ir.append_block(region, cont);
        self.cur = cont;
        Ok(())
    }

    fn patch_placeholders(&mut self, f: OpId, old_fn: OpId) -> Result<(), ConvertError> {
        if self.placeholders.is_empty() {
            return Ok(());
        }
        if self.placeholders.iter().any(|h| !self.patches.contains_key(h)) {
            return Err(self.error(old_fn, "not supported yet: a value used but never defined"));
        }
        let replace = std::mem::take(&mut self.patches);
        let ops: Vec<OpId> = self.ir.ops_under(f).into_iter().map(|(_, op)| op).collect();
        for op in ops {
            for v in self.ir.op_mut(op).operands.iter_mut() {
                // Chains (a placeholder patched to another) settle in a few steps.
                let mut steps = 0;
                while let Some(&n) = replace.get(v) {
                    *v = n;
                    steps += 1;
                    if steps > replace.len() {
                        break;
                    }
                }
            }
        }
        Ok(())
    }
}

/// `#dialect.name<body>`.
pub(crate) fn dialect_attr(name: &str, body: &str) -> Attribute {
    Attribute::Dialect { name: name.to_string(), body: Some(body.to_string()) }
}

/// The type of a typed attribute (integer, float, bool, dense).
fn attribute_type(a: &Attribute, ir: &mut Ir) -> Option<Type> {
    match a {
        Attribute::Integer { ty, .. } | Attribute::Float { ty, .. } | Attribute::Dense { ty, .. } => {
            Some(*ty)
        }
        Attribute::Bool(_) => Some(ir.types.integer(1, Signedness::Signless)),
        _ => None,
    }
}

/// The op defining `v`, if an op result.
pub(crate) fn defining_op(ir: &Ir, v: Value) -> Option<OpId> {
    match ir.value(v).def {
        ValueDef::Result { op, .. } => Some(op),
        ValueDef::Argument { .. } => None,
    }
}

#[cfg(test)]
mod tests;
