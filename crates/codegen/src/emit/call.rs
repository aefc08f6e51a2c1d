//! Calls: user functions and methods (dxc's copy-in/copy-out through `param.var.*`
//! variables), constructors, intrinsics and object methods.

use super::expr::Place;
use super::{Emitter, R};
use crate::builder::{prop, symbol};
use spirvkit_hlsl::ast::{ExprId, ExprKind};
use spirvkit_hlsl::sema::tree::{CallInfo, Callee, ParamDirection};
use spirvkit_hlsl::sema::types::{Ty, TypeData, TypeTable};
use spirvkit_ir::ir::Value;
use spirvkit_ir::types::TypeKind;

impl<'t> Emitter<'t> {
    /// The value of a call or constructor expression.
    pub fn call_expr(&mut self, e: ExprId) -> R<Value> {
        let Some(call) = self.tree.calls.get(&e).cloned() else {
            return self.unsupported("a call sema did not resolve");
        };
        let (callee_expr, args) = match &self.ast.expr(e).kind {
            ExprKind::Call { callee, args } => (Some(*callee), args.clone()),
            ExprKind::Construct { args, .. } => (None, args.clone()),
            _ => return self.unsupported("this call"),
        };
        match call.callee.clone() {
            Callee::Constructor => self.constructor(&call, &args),
            Callee::Function(f) => {
                // `a()` on an object with an `operator()` (sema resolves the call
                // itself to the method): the callee is the object.
                let calls_operator = matches!(
                    self.tree.expr(e).map(|i| &i.resolution),
                    Some(spirvkit_hlsl::sema::tree::Resolution::Method(_))
                );
                let object = match callee_expr.map(|c| (c, self.ast.expr(c).kind.clone())) {
                    Some((c, _)) if calls_operator => Some(c),
                    Some((_, ExprKind::Member { base, .. })) => Some(base),
                    _ => None,
                };
                self.user_call(f, object, &args, &call)
            }
            Callee::Intrinsic { name, .. } => self.intrinsic(name, e, &args, &call),
            Callee::ObjectMethod { name, .. } => {
                let Some(callee) = callee_expr else { return self.unsupported("this method call") };
                let ExprKind::Member { base, .. } = self.ast.expr(callee).kind else {
                    return self.unsupported("this method call");
                };
                self.object_method(name, base, e, &args, &call)
            }
        }
    }

    fn constructor(&mut self, call: &CallInfo, args: &[ExprId]) -> R<Value> {
        let to = call.ret;
        if args.len() == 1 {
            let from = self.tree.converted_type(self.arg(args, 0)?);
            let v = self.element_rvalue(self.arg(args, 0)?)?;
            let same_vector_shape = matches!(
                (self.data(from), self.data(to)),
                (TypeData::Vector(_, a), TypeData::Vector(_, b)) if a == b
            );
            if from == to
                || same_vector_shape
                || self.table.flat_count(from) != self.table.flat_count(to)
                || self.scalar_shape(from).is_some_and(|(_, n)| n == 1)
            {
                return self.convert(v, from, to);
            }
        }
        if let Some(v) = self.constant_initializer(to, args)? {
            return Ok(v);
        }
        // A constructor is an initializer list of its arguments (as clang has it).
        let items = self.evaluate_init_items(to, args)?;
        self.init_from_items(items, to)
    }

    /// A call of a user function or method (on `object`, else on `this` inside a
    /// method): arguments copied into `param.var.*` variables, `out`/`inout` ones
    /// copied back after the call.
    pub fn user_call(
        &mut self,
        f: spirvkit_hlsl::ast::DeclId,
        object: Option<ExprId>,
        args: &[ExprId],
        call: &CallInfo,
    ) -> R<Value> {
        if let Some(v) = self.inline_spirv_call(f, args, call)? {
            return Ok(v);
        }
        let def = self.tree.decl(f).and_then(|d| d.definition).unwrap_or(f);
        let params: Vec<spirvkit_hlsl::ast::DeclId> = match &self.ast.decl(def).kind {
            spirvkit_hlsl::ast::DeclKind::Function(func) => func.params.clone(),
            _ => Vec::new(),
        };
        let mut operands = Vec::new();
        // Storage classes of the pointers passed (`this` first): the callee's signature.
        let mut classes: Vec<&'static str> = Vec::new();
        // A copy of the object a method is called on that goes back to it afterwards.
        let mut this_copy_back = None;
        // `this` of a method call: the object's place.
        let is_method = !self.is_static_method(def) && self.method_owner(def).is_some();
        if is_method {
            let (this_ptr, this_ty) = match object {
                Some(base) => match self.expr(base)? {
                    super::expr::Val::P(place) => {
                        let ty = place.ty();
                        let plain = self.value_type_of(ty)?;
                        // (A `ConstantBuffer<T>` object is a view, not a struct: its
                        // value is converted to the plain struct.)
                        let is_struct = matches!(self.data(self.concrete(ty)), TypeData::Struct(_));
                        let direct = if is_struct { self.pointer_passed_as_is(&place, plain) } else { None };
                        match direct {
                            // dxc passes an lvalue object's pointer itself, whatever
                            // its storage class: the method works on the object.
                            Some((ptr, class)) => {
                                classes.push(class);
                                (ptr, ty)
                            }
                            // Laid-out memory (a buffer element) or a part of a
                            // vector: a Function copy, written back after the call
                            // when the object may be written.
                            None => {
                                let writable = is_struct
                                    && self.tree.expr(base).is_some_and(|i| {
                                        i.category == spirvkit_hlsl::sema::tree::ValueCategory::LValue
                                    })
                                    && self.writable_memory(&place);
                                let tmp = self.function_pointer_of(place.clone())?;
                                if writable && !matches!(&place, Place::Ptr { ptr, .. } if *ptr == tmp) {
                                    this_copy_back = Some((tmp, place));
                                }
                                classes.push("Function");
                                (tmp, ty)
                            }
                        }
                    }
                    // A method called on a temporary (`getT().f()`): dxc's
                    // `temp.var.<Type>` holds it.
                    super::expr::Val::R(v, ty) => {
                        let t = self.value_type_of(ty)?;
                        let name = format!("temp.var.{}", self.type_name(ty));
                        let tmp = self.function_variable(t, &name);
                        self.store_to(tmp, v);
                        classes.push("Function");
                        (tmp, ty)
                    }
                },
                // An unqualified call inside a method: the same `this`.
                _ => match self.f.as_ref().and_then(|f| f.this) {
                    Some(l) => {
                        classes.push(self.static_storage_class(l.ptr));
                        (l.ptr, l.ty)
                    }
                    None => return self.unsupported("a method call without an object"),
                },
            };
            // A base's method takes the base sub-object (bases are leading members).
            let owner = self.method_owner(def).unwrap_or(this_ty);
            let this_ptr = self.base_subobject(this_ptr, this_ty, owner)?;
            operands.push(this_ptr);
        }
        let mut copy_back = Vec::new();
        for (i, &a) in args.iter().enumerate() {
            let (pty, dir) = call.params.get(i).copied().unwrap_or((TypeTable::ERROR, ParamDirection::In));
            let pname = params.get(i).map(|&p| self.decl_name(p)).unwrap_or_default();
            self.check_unsized_array_parameter(a, pty)?;
            // The argument is evaluated before its `param.var` is declared (a call
            // nested in an argument declares its own first), as dxc does.
            match dir {
                ParamDirection::In => {
                    let v = self.init_value(a, pty)?;
                    let t = self.value_type_of(pty)?;
                    let tmp = self.function_variable(t, &format!("param.var.{pname}"));
                    self.store_to(tmp, v);
                    operands.push(tmp);
                    classes.push("Function");
                }
                ParamDirection::InOut | ParamDirection::Out => {
                    let place = self.place(a)?;
                    if let Some((ptr, class)) = self.out_argument_without_copy(a, &place, pty)? {
                        operands.push(ptr);
                        classes.push(class);
                        continue;
                    }
                    classes.push("Function");
                    let t = self.value_type_of(pty)?;
                    let tmp = self.function_variable(t, &format!("param.var.{pname}"));
                    if dir == ParamDirection::InOut {
                        let v = self.load_place(&place)?;
                        let v = self.convert(v, place.ty(), pty)?;
                        self.store_to(tmp, v);
                    }
                    copy_back.push((tmp, place, pty));
                    operands.push(tmp);
                }
            }
        }
        // Default arguments sema filled in are not in `args`: evaluate the parameter's
        // default.
        for &p in params.iter().skip(args.len()) {
            let pty = self.tree.decl(p).map_or(TypeTable::ERROR, |d| d.ty);
            let init = match &self.ast.decl(p).kind {
                spirvkit_hlsl::ast::DeclKind::Var(v) => v.init,
                _ => None,
            };
            let Some(init) = init else { return self.unsupported("a call with too few arguments") };
            let v = self.init_value(init, pty)?;
            let t = self.value_type_of(pty)?;
            let pname = self.decl_name(p);
            let tmp = self.function_variable(t, &format!("param.var.{pname}"));
            self.store_to(tmp, v);
            operands.push(tmp);
        }
        // The callee joins the work queue after the object and arguments are
        // evaluated (their calls first), as in dxc.
        let symbol_name = self.request_function_variant(f, classes)?;
        let ret = call.ret;
        let result = if self.table.is_void(ret) {
            self.effect("spirv.FunctionCall", operands, vec![prop("callee", symbol(&symbol_name))]);
            None
        } else {
            let t = self.value_type_of(ret)?;
            Some(self.val_props(
                "spirv.FunctionCall",
                operands,
                t,
                vec![prop("callee", symbol(&symbol_name))],
            ))
        };
        if let Some((tmp, place)) = this_copy_back {
            let v = self.load(tmp);
            self.store_place(&place, v)?;
        }
        for (tmp, place, pty) in copy_back {
            let v = self.load(tmp);
            let v = self.convert(v, pty, place.ty())?;
            self.store_place(&place, v)?;
        }
        match result {
            Some(v) => Ok(v),
            None => {
                let t = self.void_type();
                Ok(self.undef(t))
            }
        }
    }

    /// An `out`/`inout` argument that is an lvalue of the parameter's type: dxc
    /// passes its pointer itself, without a `param.var` copy. dxc does so for any
    /// storage class (its legalization then fixes the callee's storage classes);
    /// here only Function memory is passed so, other memory is copied in and out.
    fn out_argument_without_copy(
        &mut self,
        a: ExprId,
        place: &Place,
        pty: Ty,
    ) -> R<Option<(Value, &'static str)>> {
        let mut e = a;
        while let ExprKind::Paren(inner) = &self.ast.expr(e).kind {
            e = *inner;
        }
        if self.tree.converted_type(a) != pty || self.expr_ty(e) != pty {
            return Ok(None);
        }
        if place.ty() != pty {
            return Ok(None);
        }
        let value_type = self.value_type_of(pty)?;
        Ok(self.pointer_passed_as_is(place, value_type))
    }

    /// Whether the memory behind `place` may be written: not a constant buffer (a
    /// `Block` in Uniform memory), a push constant, an input or read-only storage
    /// (`NonWritable` members), judged at the variable its access chains start from.
    fn writable_memory(&self, place: &Place) -> bool {
        let Place::Ptr { ptr, .. } = *place else { return false };
        let mut root = ptr;
        for _ in 0..256 {
            match self.def_op(root).map(|o| self.ir.op(o)) {
                Some(o) if matches!(o.name.as_str(), "spirv.AccessChain" | "spirv.PtrAccessChain") => {
                    match o.operands.first() {
                        Some(&base) => root = base,
                        None => return false,
                    }
                }
                _ => break,
            }
        }
        let class = self.storage_class_of(root);
        if !matches!(class.as_str(), "Function" | "Private" | "Workgroup" | "Uniform" | "StorageBuffer") {
            return false;
        }
        let store = self.lower.store();
        let body = self.pointee(root).and_then(|t| match store.kind(t) {
            TypeKind::IdentifiedStruct { name } => store.struct_body(name),
            _ => None,
        });
        let Some(body) = body else { return true };
        let read_only_block = class == "Uniform" && body.decorations.iter().any(|(d, _)| d == "Block");
        let non_writable = body.members.iter().any(|m| m.decorations.iter().any(|(d, _)| d == "NonWritable"));
        !read_only_block && !non_writable
    }

    /// The pointer and storage class of a place passed to a callee as it is: a whole
    /// value of the parameter's plain type `plain` (not a laid-out copy of it), in
    /// Function memory, or a whole variable of a class a function parameter may point
    /// to (a `static`, `groupshared` variable: dxc passes any lvalue, and its
    /// legalization fixes the callee's storage classes; a part of such a variable is
    /// copied in and out here, so that the callee, specialized to the class, takes a
    /// memory object declaration).
    fn pointer_passed_as_is(
        &self,
        place: &Place,
        plain: spirvkit_ir::types::Type,
    ) -> Option<(Value, &'static str)> {
        let Place::Ptr { ptr, .. } = *place else { return None };
        if self.pointee(ptr) != Some(plain) {
            return None;
        }
        let class = self.static_storage_class(ptr);
        let whole_variable = || {
            // A variable, or a parameter (`def_op` is `None`).
            self.def_op(ptr).is_none_or(|o| {
                matches!(self.ir.op(o).name.as_str(), "spirv.mlir.addressof" | "spirv.Variable")
            })
        };
        match class {
            "Function" => Some((ptr, class)),
            // Buffer memory is laid out: its copy is converted instead.
            "Private" | "Workgroup" => whole_variable().then_some((ptr, class)),
            _ => None,
        }
    }

    /// The storage class of `ptr` when a function parameter may take it (Function,
    /// Private, Workgroup, Uniform, StorageBuffer), else "".
    fn static_storage_class(&self, ptr: Value) -> &'static str {
        match self.storage_class_of(ptr).as_str() {
            "Function" => "Function",
            "Private" => "Private",
            "Workgroup" => "Workgroup",
            "Uniform" => "Uniform",
            "StorageBuffer" => "StorageBuffer",
            _ => "",
        }
    }

    /// A Function-storage pointer to a place's value (a copy when the place is
    /// elsewhere).
    pub fn function_pointer_of(&mut self, place: Place) -> R<Value> {
        if let Place::Ptr { ptr, rule: None, .. } = &place {
            if self.storage_class_of(*ptr) == "Function" {
                return Ok(*ptr);
            }
        }
        let ty = place.ty();
        let v = self.load_place(&place)?;
        let t = self.value_type_of(ty)?;
        let name = self.temp_var_name(ty);
        let tmp = self.function_variable(t, &name);
        self.store_to(tmp, v);
        Ok(tmp)
    }

    /// The pointer to the `base` sub-object of the struct of type `derived` behind
    /// `ptr`: an access chain through the leading base members (`ptr` itself when the
    /// types are the same).
    pub fn base_subobject(&mut self, ptr: Value, derived: Ty, base: Ty) -> R<Value> {
        let base = self.concrete(base);
        let mut ty = self.concrete(derived);
        let mut indices = Vec::new();
        for _ in 0..64 {
            if ty == base {
                if indices.is_empty() {
                    return Ok(ptr);
                }
                let t = self.ty(base)?;
                return Ok(self.access_chain(ptr, indices, t));
            }
            let TypeData::Struct(id) = self.data(ty).clone() else { break };
            let Some(info) = self.table.struct_info(id) else { break };
            let found = info.bases.iter().position(|&b| self.derives_from(b, base, 0));
            let Some(i) = found else { break };
            let next = self.concrete(info.bases[i]);
            indices.push(self.u32_constant(i as u32));
            ty = next;
        }
        self.unsupported(format!(
            "calling a method of '{}' on a '{}'",
            self.table.display(base),
            self.table.display(derived)
        ))
    }

    /// Whether `ty` is `base` or derives from it.
    fn derives_from(&self, ty: Ty, base: Ty, depth: u32) -> bool {
        let ty = self.concrete(ty);
        if ty == base {
            return true;
        }
        if depth > 64 {
            return false;
        }
        match self.data(ty) {
            TypeData::Struct(id) => self
                .table
                .struct_info(*id)
                .is_some_and(|info| info.bases.iter().any(|&b| self.derives_from(b, base, depth + 1))),
            _ => false,
        }
    }

    /// The `i`th argument, or an error when the call has fewer.
    pub fn arg(&self, args: &[ExprId], i: usize) -> R<ExprId> {
        match args.get(i) {
            Some(&a) => Ok(a),
            None => self.unsupported(format!("this call with {} arguments", args.len())),
        }
    }

    /// A call of a function declared `[[vk::ext_instruction(opcode)]]` without a body
    /// (inline SPIR-V): the core instruction `opcode` applied to the arguments' values,
    /// its result type the function's return type. Only instructions whose operands
    /// are all ids are taken, from parameters passed by value; `None` for other calls.
    fn inline_spirv_call(
        &mut self,
        f: spirvkit_hlsl::ast::DeclId,
        args: &[ExprId],
        call: &CallInfo,
    ) -> R<Option<Value>> {
        let Some(attr_args) = self.int_attribute_args(f, "ext_instruction") else { return Ok(None) };
        let def = self.tree.decl(f).and_then(|d| d.definition).unwrap_or(f);
        let spirvkit_hlsl::ast::DeclKind::Function(func) = &self.ast.decl(def).kind else { return Ok(None) };
        if func.body.is_some() {
            return Ok(None);
        }
        let params = func.params.clone();
        let attr = self.vk_attribute(f, "ext_instruction").map_or(0, |a| a.args.len());
        let [opcode] = attr_args.as_slice() else {
            return if attr > 1 {
                self.unsupported("inline SPIR-V instructions of an extended instruction set")
            } else {
                self.unsupported("an 'ext_instruction' attribute without a constant opcode")
            };
        };
        let by_reference = params.iter().any(|&p| {
            self.vk_attribute(p, "ext_reference").is_some() || self.vk_attribute(p, "ext_literal").is_some()
        });
        if by_reference
            || ["ext_capability", "ext_extension"].iter().any(|a| self.vk_attribute(f, a).is_some())
        {
            return self.unsupported(
                "inline SPIR-V with 'ext_reference', 'ext_literal', 'ext_capability' or 'ext_extension'",
            );
        }
        let instruction = u16::try_from(*opcode).ok().and_then(spirvkit_grammar::instruction);
        let Some(instruction) = instruction else {
            return self
                .unsupported(format!("inline SPIR-V opcode {opcode}, which the grammar does not know"));
        };
        let ids_only = instruction.has_result_type()
            && instruction.operands.iter().skip(2).all(|o| o.kind == spirvkit_grammar::OperandKind::IdRef)
            && instruction.operands.len() == args.len() + 2;
        if !ids_only {
            return self.unsupported(format!(
                "inline SPIR-V '{}' here (only instructions with a result and id operands, one per argument)",
                instruction.name
            ));
        }
        let mut operands = Vec::new();
        for (i, &a) in args.iter().enumerate() {
            let (pty, _) = call.params.get(i).copied().unwrap_or((TypeTable::ERROR, ParamDirection::In));
            operands.push(self.init_value(a, pty)?);
        }
        let ty = self.value_type_of(call.ret)?;
        let name = format!("spirv.{}", instruction.name.trim_start_matches("Op"));
        match spirvkit_ir::opdef::op_def(&name) {
            // The dialect's op when it takes exactly these operands.
            Some(d)
                if d.spirv_name == Some(instruction.name)
                    && d.results.len() == 1
                    && d.arguments.len() == operands.len()
                    && d.arguments.iter().all(|a| matches!(a, spirvkit_ir::opdef::Argument::Operand(_))) =>
            {
                Ok(Some(self.val(&name, operands, ty)))
            }
            Some(_) => self.unsupported(format!("inline SPIR-V '{}' with these operands", instruction.name)),
            None => {
                let items: Vec<super::resources::Opnd> =
                    operands.into_iter().map(super::resources::Opnd::Id).collect();
                Ok(Some(self.fallback_val(&name, &items, ty)))
            }
        }
    }
}
