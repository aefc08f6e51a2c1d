//! Barriers, group and non-uniform ops as calls to the SPIR-V friendly builtins
//! (`@_Z22__spirv_ControlBarrieriii`, `@_Z17__spirv_GroupIAddiij`, ...), declared at the
//! start of the nearest symbol table as MLIR does; scopes, semantics and group
//! operations become `i32` constants.

use super::{dialect_attr, ConvertError, Converter};
use spirvkit_grammar::OperandKind;
use spirvkit_ir::attr::Attribute;
use spirvkit_ir::ir::{OpId, Value};
use spirvkit_ir::types::{FloatKind, Type, TypeKind};

/// The numeric value of an enum attribute's text (`A|B` for bit enums) in `kind`.
pub(crate) fn enum_value(kind: &str, text: &str) -> Option<u32> {
    let info = OperandKind::from_name(kind)?.info();
    let mut value = 0;
    for part in text.split('|').map(str::trim).filter(|p| !p.is_empty()) {
        value |= info.enumerant_by_name(part)?.value;
    }
    Some(value)
}

/// The Itanium mangling of an argument type, as the SPIR-V friendly builtins use it
/// (integers as unsigned).
fn mangle(ir: &spirvkit_ir::ir::Ir, ty: Type) -> Option<String> {
    Some(match ir.types.kind(ty) {
        TypeKind::Integer { width: 1, .. } => "b".into(),
        TypeKind::Integer { width: 8, .. } => "h".into(),
        TypeKind::Integer { width: 16, .. } => "t".into(),
        TypeKind::Integer { width: 32, .. } => "j".into(),
        TypeKind::Integer { width: 64, .. } => "m".into(),
        TypeKind::Float(FloatKind::F16) => "Dh".into(),
        TypeKind::Float(FloatKind::F32) => "f".into(),
        TypeKind::Float(FloatKind::F64) => "d".into(),
        TypeKind::Vector { shape, element, .. } => {
            format!("Dv{}_{}", shape.iter().product::<u64>(), mangle(ir, *element)?)
        }
        _ => return None,
    })
}

impl Converter<'_> {
    fn enum_attr_value(&self, op: OpId, key: &str, kind: &str) -> Result<i128, ConvertError> {
        match self.ir.op(op).attr(key) {
            Some(Attribute::Dialect { body: Some(b), .. }) => {
                enum_value(kind, b).map(i128::from).ok_or_else(|| self.illegal(op))
            }
            _ => Err(self.illegal(op)),
        }
    }

    /// Declares `name` (once) and calls it with `args`.
    fn spirv_builtin_call(&mut self, name: &str, args: Vec<Value>, result: Option<Type>) -> Option<Value> {
        if !self.declare_once(name) {
            let params: Vec<Type> = args.iter().map(|&a| self.ir.value_type(a)).collect();
            let ret = match result {
                Some(t) => t,
                None => self.ir.types.llvm_void(),
            };
            let fn_ty = self.ir.types.llvm_function(ret, params, false);
            let decl = self.ir.create_op("llvm.func", vec![], &[], self.loc.clone());
            let props = vec![
                ("CConv", dialect_attr("llvm.cconv", "spir_funccc")),
                ("convergent", Attribute::Unit),
                ("function_type", Attribute::Type(fn_ty)),
                ("linkage", dialect_attr("llvm.linkage", "external")),
                ("no_unwind", Attribute::Unit),
                ("sym_name", Attribute::String(name.to_string())),
                ("visibility_", self.int_attr(0, 64)),
                ("will_return", Attribute::Unit),
            ];
            for (k, v) in props {
                self.ir.set_property(decl, k, v);
            }
            self.ir.add_region(decl);
            self.insert_at_symbol_table_start(decl);
        }
        let i32t = self.int_type(32);
        let n = args.len() as i128;
        let props = vec![
            ("CConv", dialect_attr("llvm.cconv", "spir_funccc")),
            ("TailCallKind", dialect_attr("llvm.tailcallkind", "none")),
            ("callee", Attribute::SymbolRef(vec![name.to_string()])),
            ("convergent", Attribute::Unit),
            ("fastmathFlags", Converter::fastmath_none()),
            ("no_unwind", Attribute::Unit),
            ("op_bundle_sizes", Attribute::DenseArray { element: i32t, values: vec![] }),
            (
                "operandSegmentSizes",
                Attribute::DenseArray {
                    element: i32t,
                    values: vec![
                        Attribute::Integer { value: n, ty: i32t },
                        Attribute::Integer { value: 0, ty: i32t },
                    ],
                },
            ),
            ("will_return", Attribute::Unit),
        ];
        let results: Vec<Type> = result.into_iter().collect();
        let call = self.emit("llvm.call", args, &results, props);
        self.ir.op(call).results.first().copied()
    }

    /// Lowers barriers, group and non-uniform ops; `None` for other ops.
    pub(crate) fn lower_call_like(&mut self, op: OpId, name: &str) -> Result<Option<()>, ConvertError> {
        match name {
            "spirv.ControlBarrier"
            | "spirv.INTEL.ControlBarrierArrive"
            | "spirv.INTEL.ControlBarrierWait" => {
                let exec = self.enum_attr_value(op, "execution_scope", "Scope")?;
                let mem = self.enum_attr_value(op, "memory_scope", "Scope")?;
                let sem = self.enum_attr_value(op, "memory_semantics", "MemorySemantics")?;
                let args = vec![self.const_int(exec, 32), self.const_int(mem, 32), self.const_int(sem, 32)];
                let callee = match name {
                    "spirv.ControlBarrier" => "__spirv_ControlBarrier",
                    "spirv.INTEL.ControlBarrierArrive" => "__spirv_ControlBarrierArriveINTEL",
                    _ => "__spirv_ControlBarrierWaitINTEL",
                };
                self.spirv_builtin_call(&format!("_Z{}{callee}iii", callee.len()), args, None);
                Ok(Some(()))
            }
            "spirv.MemoryBarrier" => {
                let mem = self.enum_attr_value(op, "memory_scope", "Scope")?;
                let sem = self.enum_attr_value(op, "memory_semantics", "MemorySemantics")?;
                let args = vec![self.const_int(mem, 32), self.const_int(sem, 32)];
                self.spirv_builtin_call("_Z21__spirv_MemoryBarrierjj", args, None);
                Ok(Some(()))
            }
            _ if name.starts_with("spirv.Group") => self.lower_group_op(op, name).map(Some),
            _ => Ok(None),
        }
    }

    fn lower_group_op(&mut self, op: OpId, name: &str) -> Result<(), ConvertError> {
        let builtin = format!("__spirv_{}", &name["spirv.".len()..]);
        let operands = self.operands(op)?;
        let result = match self.ir.op(op).results.len() {
            0 => None,
            _ => Some(self.result_type(op, 0)?),
        };
        let scope = self.enum_attr_value(op, "execution_scope", "Scope")?;
        let mut args = vec![self.const_int(scope, 32)];
        let mut mangled = String::from("i");
        if self.ir.op(op).attr("group_operation").is_some() {
            let group = self.enum_attr_value(op, "group_operation", "GroupOperation")?;
            args.push(self.const_int(group, 32));
            mangled.push('i');
        }
        for v in operands {
            let ty = self.ir.value_type(v);
            mangled.push_str(&mangle(self.ir, ty).ok_or_else(|| self.unsupported(op))?);
            args.push(v);
        }
        let symbol = format!("_Z{}{builtin}{mangled}", builtin.len());
        if let Some(v) = self.spirv_builtin_call(&symbol, args, result) {
            self.replace(op, v);
        }
        Ok(())
    }

    // ---- module-level ops ------------------------------------------------------------

    pub(crate) fn convert_global_variable(&mut self, op: OpId) -> Result<OpId, ConvertError> {
        let Some(Attribute::Type(ptr_ty)) = self.ir.op(op).attr("type").cloned() else {
            return Err(self.illegal(op));
        };
        let TypeKind::Pointer { pointee, storage_class, .. } = self.ir.types.kind(ptr_ty).clone() else {
            return Err(self.illegal(op));
        };
        // A combined image sampler's descriptor is its image's (`images`).
        let image_type = match self.ir.types.kind(pointee) {
            TypeKind::SampledImage(image) if self.options.storage_images => *image,
            _ => pointee,
        };
        let is_image = matches!(self.ir.types.kind(image_type), TypeKind::Image { .. });
        if let (true, TypeKind::Image { params, .. }) =
            (self.options.storage_images, self.ir.types.kind(image_type).clone())
        {
            let attr = |key: &str| match self.ir.op(op).attr(key) {
                Some(Attribute::Integer { value, .. }) => u32::try_from(*value).ok(),
                _ => None,
            };
            let (set, binding) = (attr("descriptor_set").unwrap_or(0), attr("binding"));
            let bound = self
                .options
                .image_formats
                .iter()
                .find(|(s, b, _)| (*s, Some(*b)) == (set, binding))
                .map(|(_, _, format)| format.clone());
            if let Err(what) = super::images::storage_image(&params, bound.as_deref()) {
                return Err(self.error(op, format!("not supported yet: {what}")));
            }
            if let (Some(bound), Some(Attribute::String(name))) =
                (bound, self.ir.op(op).attr("sym_name").cloned())
            {
                self.image_formats_by_symbol.insert(name, bound);
            }
        } else if matches!(self.ir.types.kind(pointee), TypeKind::Sampler) && self.options.storage_images {
            // A sampler: its state words (`images::SAMPLER_BYTES`).
        } else if matches!(
            self.ir.types.kind(pointee),
            TypeKind::Image { .. } | TypeKind::SampledImage(_) | TypeKind::Sampler
        ) {
            return Err(self.error(op, "not supported yet: spirv.GlobalVariable of an image or sampler type"));
        }
        let mlir_storage = matches!(
            storage_class.as_str(),
            "Input" | "Output" | "Private" | "StorageBuffer" | "UniformConstant"
        );
        if !mlir_storage && !self.options.all_storage_classes {
            return Err(self.illegal(op));
        }
        let global_type = if is_image {
            // The descriptor's header (its texels follow, as a runtime array would).
            let i32t = self.int_type(32);
            self.ir.types.llvm_array(super::images::IMAGE_HEADER_BYTES / 4, i32t)
        } else if matches!(self.ir.types.kind(pointee), TypeKind::Sampler) && self.options.storage_images {
            let i32t = self.int_type(32);
            self.ir.types.llvm_array(super::images::SAMPLER_BYTES / 4, i32t)
        } else {
            self.convert_type(pointee).ok_or_else(|| self.illegal(op))?
        };
        let Some(Attribute::String(name)) = self.ir.op(op).attr("sym_name").cloned() else {
            return Err(self.illegal(op));
        };
        let name = self.global_names.get(&name).cloned().unwrap_or(name);
        let global = self.ir.create_op("llvm.mlir.global", vec![], &[], self.loc.clone());
        let linkage = if storage_class == "Private" { "private" } else { "external" };
        let mut props = vec![
            ("addr_space", self.int_attr(i128::from(self.address_space(&storage_class)), 32)),
            ("global_type", Attribute::Type(global_type)),
            ("linkage", dialect_attr("llvm.linkage", linkage)),
            ("sym_name", Attribute::String(name)),
            ("visibility_", self.int_attr(0, 64)),
        ];
        // A storage image's memory is written through its value (see `images`).
        if matches!(storage_class.as_str(), "Input" | "UniformConstant") && !is_image {
            props.push(("constant", Attribute::Unit));
        }
        for (k, v) in props {
            self.ir.set_property(global, k, v);
        }
        // MLIR's pattern keeps `location`, as a discardable attribute.
        if let Some(location) = self.ir.op(op).attr("location").cloned() {
            self.ir
                .op_mut(global)
                .attributes
                .push(spirvkit_ir::attr::NamedAttribute::new("location", location));
        }
        let region = self.ir.add_region(global);
        if self.ir.op(op).attr("initializer").is_some() {
            return Err(self.error(op, "not supported yet: a spirv.GlobalVariable initialized by a symbol"));
        }
        // The deserializer keeps a constant initializer by value: the global's region
        // computes it.
        if let Some(value) = self.ir.op(op).attr("initializer_constant").cloned() {
            let body = self.ir.create_block();
            self.ir.append_block(region, body);
            let saved = self.cur;
            self.cur = body;
            let v = self.materialize_constant(op, &value, pointee);
            self.cur = saved;
            let v = v?;
            let saved = std::mem::replace(&mut self.cur, body);
            self.emit("llvm.return", vec![v], &[], vec![]);
            self.cur = saved;
        }
        Ok(global)
    }

    pub(crate) fn convert_spec_constant(&mut self, op: OpId) -> Result<OpId, ConvertError> {
        let Some(value) = self.ir.op(op).attr("default_value").cloned() else { return Err(self.illegal(op)) };
        let Some(name) = self.ir.op(op).attr("sym_name").cloned() else { return Err(self.illegal(op)) };
        let (value, ty) = match value {
            Attribute::Integer { value, ty } => {
                let ty = self.convert_type(ty).ok_or_else(|| self.illegal(op))?;
                (Attribute::Integer { value: self.ir.types.normalize_integer(value, ty), ty }, ty)
            }
            Attribute::Float { value, ty } => (Attribute::Float { value, ty }, ty),
            Attribute::Bool(b) => (Attribute::Bool(b), self.int_type(1)),
            _ => return Err(self.unsupported(op)),
        };
        let global = self.ir.create_op("llvm.mlir.global", vec![], &[], self.loc.clone());
        let props = vec![
            ("addr_space", self.int_attr(0, 32)),
            ("constant", Attribute::Unit),
            ("global_type", Attribute::Type(ty)),
            ("linkage", dialect_attr("llvm.linkage", "private")),
            ("sym_name", name),
            ("value", value),
            ("visibility_", self.int_attr(0, 64)),
        ];
        for (k, v) in props {
            self.ir.set_property(global, k, v);
        }
        self.ir.add_region(global);
        Ok(global)
    }

    /// `spirv.ExecutionMode` as MLIR keeps it: a constant global
    /// `__spv__<fn>_execution_mode_info_<mode>` holding `{mode, [values]}`.
    pub(crate) fn convert_execution_mode(&mut self, op: OpId) -> Result<OpId, ConvertError> {
        let Some(Attribute::SymbolRef(path)) = self.ir.op(op).attr("fn").cloned() else {
            return Err(self.illegal(op));
        };
        let mode = self.enum_attr_value(op, "execution_mode", "ExecutionMode")?;
        let values: Vec<i128> = match self.ir.op(op).attr("values") {
            Some(Attribute::Array(items)) => items
                .iter()
                .filter_map(|a| match a {
                    Attribute::Integer { value, .. } => Some(*value),
                    _ => None,
                })
                .collect(),
            _ => vec![],
        };
        let i32t = self.int_type(32);
        let mut members = vec![i32t];
        if !values.is_empty() {
            members.push(self.ir.types.llvm_array(values.len() as u64, i32t));
        }
        let struct_ty = self.ir.types.llvm_struct(false, members);
        let fn_name = path.last().cloned().unwrap_or_default();
        let global = self.ir.create_op("llvm.mlir.global", vec![], &[], self.loc.clone());
        let props = vec![
            ("addr_space", self.int_attr(0, 32)),
            ("constant", Attribute::Unit),
            ("global_type", Attribute::Type(struct_ty)),
            ("linkage", dialect_attr("llvm.linkage", "external")),
            ("sym_name", Attribute::String(format!("__spv__{fn_name}_execution_mode_info_{mode}"))),
            ("visibility_", self.int_attr(0, 64)),
        ];
        for (k, v) in props {
            self.ir.set_property(global, k, v);
        }
        let region = self.ir.add_region(global);
        let body = self.ir.create_block();
        self.ir.append_block(region, body);
        let saved = self.cur;
        self.cur = body;
        let mut acc = self.emit_value("llvm.mlir.poison", vec![], struct_ty, vec![]);
        let mode_value = self.const_int(mode, 32);
        let i64t = self.int_type(64);
        let pos = |p: &[i128]| Attribute::DenseArray {
            element: i64t,
            values: p.iter().map(|&v| Attribute::Integer { value: v, ty: i64t }).collect(),
        };
        acc = self.emit_value(
            "llvm.insertvalue",
            vec![acc, mode_value],
            struct_ty,
            vec![("position", pos(&[0]))],
        );
        for (i, &v) in values.iter().enumerate() {
            let c = self.const_int(v, 32);
            acc = self.emit_value(
                "llvm.insertvalue",
                vec![acc, c],
                struct_ty,
                vec![("position", pos(&[1, i as i128]))],
            );
        }
        self.emit("llvm.return", vec![acc], &[], vec![]);
        self.cur = saved;
        Ok(global)
    }
}
