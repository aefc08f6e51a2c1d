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
                ParamDirection::In if self.is_ray_query(pty) => {
                    // A query is a handle: the callee works on the caller's query.
                    let Some(ptr) = self.ray_query_pointer(a)? else {
                        return self.unsupported("a ray query argument that is not a variable");
                    };
                    operands.push(ptr);
                }
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

    /// A call of a function declared `[[vk::ext_instruction(opcode)]]` or
    /// `[[vk::ext_instruction(number, "set")]]` without a body (inline SPIR-V): the
    /// core instruction `opcode`, or the extended instruction `number` of `set`,
    /// applied to the arguments: by value as ids, `[[vk::ext_literal]]` parameters as
    /// literal words; the result type is the function's return type (none when it is
    /// void). The function's `ext_capability`/`ext_extension` join the module. `None`
    /// for other calls.
    fn inline_spirv_call(
        &mut self,
        f: spirvkit_hlsl::ast::DeclId,
        args: &[ExprId],
        call: &CallInfo,
    ) -> R<Option<Value>> {
        let Some(attribute) = self.vk_attribute(f, "ext_instruction") else { return Ok(None) };
        let def = self.tree.decl(f).and_then(|d| d.definition).unwrap_or(f);
        let spirvkit_hlsl::ast::DeclKind::Function(func) = &self.ast.decl(def).kind else { return Ok(None) };
        if func.body.is_some() {
            return Ok(None);
        }
        let params = func.params.clone();
        let attribute_args = attribute.args.clone();
        let number = attribute_args.first().and_then(|&e| self.attribute_int(e));
        let Some(number) = number.and_then(|n| u32::try_from(n).ok()) else {
            return self.unsupported("an 'ext_instruction' attribute without a constant opcode");
        };
        let set = match attribute_args.as_slice() {
            [_] => None,
            [_, set] => match self.string_literal(*set) {
                Some(s) => Some(s),
                None => return self.unsupported("an 'ext_instruction' attribute whose set is not a string"),
            },
            _ => return self.unsupported("an 'ext_instruction' attribute with more than two arguments"),
        };
        self.decl_inline_requirements(f)?;
        if def != f {
            self.decl_inline_requirements(def)?;
        }
        let mut operands = Vec::new();
        for (i, &a) in args.iter().enumerate() {
            let param = params.get(i).copied();
            if param.is_some_and(|p| self.vk_attribute(p, "ext_reference").is_some()) {
                return self.unsupported("inline SPIR-V with an 'ext_reference' parameter");
            }
            if param.is_some_and(|p| self.vk_attribute(p, "ext_literal").is_some()) {
                let constant = self.tree.expr(a).and_then(|i| i.constant).and_then(|c| c.as_int());
                let word = constant
                    .and_then(|v| u32::try_from(v).ok().or_else(|| i32::try_from(v).ok().map(|v| v as u32)));
                let Some(word) = word else {
                    return self
                        .unsupported("an 'ext_literal' argument that is not a 32-bit integer constant");
                };
                operands.push(super::resources::Opnd::Lit(word));
            } else {
                let (pty, _) = call.params.get(i).copied().unwrap_or((TypeTable::ERROR, ParamDirection::In));
                operands.push(super::resources::Opnd::Id(self.init_value(a, pty)?));
            }
        }
        let void = self.table.is_void(call.ret);
        let ty = if void { None } else { Some(self.value_type_of(call.ret)?) };
        match set {
            Some(set) => self.inline_ext_inst(&set, number, operands, ty).map(Some),
            None => self.inline_core_instruction(number, operands, ty).map(Some),
        }
    }

    /// Inline SPIR-V's core instruction `opcode` with `operands`, checked against its
    /// grammar: ids where it takes ids, literal words where it takes literals or
    /// enumerants, a result exactly when the function returns a value.
    fn inline_core_instruction(
        &mut self,
        opcode: u32,
        operands: Vec<super::resources::Opnd>,
        ty: Option<spirvkit_ir::types::Type>,
    ) -> R<Value> {
        use super::resources::Opnd;
        use spirvkit_grammar::{Category, OperandKind, Quantifier};
        let instruction = u16::try_from(opcode).ok().and_then(spirvkit_grammar::instruction);
        let Some(instruction) = instruction else {
            return self
                .unsupported(format!("inline SPIR-V opcode {opcode}, which the grammar does not know"));
        };
        if instruction.has_result_type() != ty.is_some() || instruction.has_result() != ty.is_some() {
            return self.unsupported(format!(
                "inline SPIR-V '{}' declared {} a return value",
                instruction.name,
                if ty.is_some() { "with" } else { "without" }
            ));
        }
        let slots: Vec<_> = instruction
            .operands
            .iter()
            .filter(|o| !matches!(o.kind, OperandKind::IdResultType | OperandKind::IdResult))
            .collect();
        let mut slot = 0usize;
        for operand in &operands {
            let Some(expected) = slots.get(slot) else {
                return self.unsupported(format!(
                    "inline SPIR-V '{}' with more operands than it takes",
                    instruction.name
                ));
            };
            let fits = match operand {
                Opnd::Id(_) => expected.kind.category() == Category::Id,
                Opnd::Lit(_) => {
                    matches!(
                        expected.kind.category(),
                        Category::Literal | Category::ValueEnum | Category::BitEnum
                    ) && !matches!(expected.kind, OperandKind::LiteralString)
                }
            };
            if !fits {
                return self.unsupported(format!(
                    "inline SPIR-V '{}' with {} where it takes {}",
                    instruction.name,
                    if matches!(operand, Opnd::Id(_)) { "a value" } else { "a literal" },
                    expected.kind.name()
                ));
            }
            if expected.quantifier != Quantifier::Variadic {
                slot += 1;
            }
        }
        if slots.iter().skip(slot).any(|o| o.quantifier == Quantifier::One) {
            return self.unsupported(format!(
                "inline SPIR-V '{}' with fewer operands than it takes",
                instruction.name
            ));
        }
        let name = format!("spirv.{}", instruction.name.trim_start_matches("Op"));
        let ids: Option<Vec<Value>> =
            operands.iter().map(|o| if let Opnd::Id(v) = o { Some(*v) } else { None }).collect();
        match (spirvkit_ir::opdef::op_def(&name), ty) {
            // The dialect's op when it takes exactly these operands.
            (Some(d), Some(ty))
                if ids.as_ref().is_some_and(|ids| {
                    d.spirv_name == Some(instruction.name)
                        && d.results.len() == 1
                        && d.arguments.len() == ids.len()
                        && d.arguments.iter().all(|a| matches!(a, spirvkit_ir::opdef::Argument::Operand(_)))
                }) =>
            {
                Ok(self.val(&name, ids.unwrap_or_default(), ty))
            }
            (Some(_), _) => {
                self.unsupported(format!("inline SPIR-V '{}' with these operands", instruction.name))
            }
            (None, Some(ty)) => Ok(self.fallback_val(&name, &operands, ty)),
            (None, None) => {
                self.fallback_effect(&name, &operands);
                let vt = self.void_type();
                Ok(self.undef(vt))
            }
        }
    }

    /// Inline SPIR-V's extended instruction `number` of the set imported as `set`:
    /// the dialect's op for GLSL.std.450 and OpenCL.std instructions it models, else
    /// the generic `spirv.ExtInst` (translate's fallback), whose operands are ids.
    fn inline_ext_inst(
        &mut self,
        set: &str,
        number: u32,
        operands: Vec<super::resources::Opnd>,
        ty: Option<spirvkit_ir::types::Type>,
    ) -> R<Value> {
        use super::resources::Opnd;
        let ids: Option<Vec<Value>> =
            operands.iter().map(|o| if let Opnd::Id(v) = o { Some(*v) } else { None }).collect();
        let Some(ids) = ids else {
            return self.unsupported("an 'ext_literal' operand of an extended instruction");
        };
        let prefix =
            spirvkit_translate::fallback::EXT_SET_PREFIXES.iter().find(|(_, s)| *s == set).map(|(p, _)| *p);
        if let Some(prefix) = prefix {
            let known = spirvkit_grammar::ext_inst_set(set).and_then(|s| s.instruction(number));
            let Some(known) = known else {
                return self
                    .unsupported(format!("instruction {number} of {set}, which the grammar does not know"));
            };
            let Some(ty) = ty else {
                return self.unsupported(format!("the {set} instruction {} without a result", known.name));
            };
            let name = format!("{prefix}{}", known.name);
            return match spirvkit_ir::opdef::op_def(&name) {
                Some(d)
                    if d.results.len() == 1
                        && d.arguments.len() == ids.len()
                        && d.arguments
                            .iter()
                            .all(|a| matches!(a, spirvkit_ir::opdef::Argument::Operand(_))) =>
                {
                    Ok(self.val(&name, ids, ty))
                }
                Some(_) => {
                    self.unsupported(format!("the {set} instruction {} with these operands", known.name))
                }
                None => Ok(self.fallback_val(&name, &operands, ty)),
            };
        }
        let i32_type = self.store().integer(32, spirvkit_ir::types::Signedness::Signless);
        let instruction = spirvkit_translate::fallback::ext_instruction_attr(set, number, i32_type);
        let props = vec![
            crate::builder::prop(spirvkit_translate::fallback::EXT_INSTRUCTION_ATTR, instruction),
            crate::builder::prop(
                spirvkit_translate::fallback::EXT_SET_ATTR,
                spirvkit_ir::attr::Attribute::String(set.to_string()),
            ),
        ];
        let result = match ty {
            Some(ty) => ty,
            None => self.store().intern(spirvkit_ir::types::TypeKind::None),
        };
        Ok(self.op(spirvkit_translate::fallback::EXT_INST_OP, ids, Some(result), props))
    }
}
