//! `spirv.ArrayLength` (`ConvertOptions::buffer_lengths`; MLIR has no lowering): the
//! number of elements of a buffer block's trailing runtime array that fit in the bound
//! buffer, `(bytes - offset) / stride` (0 when the buffer is shorter than the members
//! before the array), as Vulkan defines it. The buffer's size is known only when a
//! descriptor is bound: it is `call @spirvkit_buffer_bytes(ptr)`, which the CPU kernel
//! pass replaces with the size of the descriptor the pointer points into.

use super::{dialect_attr, ConvertError, Converter, BUFFER_BYTES_FUNCTION};
use spirvkit_ir::attr::Attribute;
use spirvkit_ir::ir::{OpId, Value};
use spirvkit_ir::types::{Type, TypeKind};

impl Converter<'_> {
    /// The member index of an `OpArrayLength` (the fallback form's literal, or a
    /// `member` attribute).
    fn array_length_member(&self, op: OpId) -> Option<usize> {
        let literal = match self.ir.op(op).attr("literals") {
            Some(Attribute::Array(items)) if items.len() == 1 => items.first(),
            _ => self.ir.op(op).attr("member"),
        };
        match literal? {
            Attribute::Integer { value, .. } => usize::try_from(*value).ok(),
            _ => None,
        }
    }

    pub(crate) fn lower_array_length(&mut self, op: OpId) -> Result<(), ConvertError> {
        let operands = self.operands(op)?;
        let [base] = operands[..] else { return Err(self.illegal(op)) };
        let member = self.array_length_member(op).ok_or_else(|| self.illegal(op))?;
        let pointee = self.pointee_of(op, 0)?;
        let llvm_struct = self.convert_type(pointee).ok_or_else(|| self.illegal(op))?;
        // The member's LLVM index (explicit layouts insert padding members).
        let (_, positions) = self.member_step(pointee, member as i64).ok_or_else(|| self.illegal(op))?;
        let [position] = positions[..] else { return Err(self.illegal(op)) };
        let position = usize::try_from(position).map_err(|_| self.illegal(op))?;
        let TypeKind::LlvmStruct { packed, members, .. } = self.ir.types.kind(llvm_struct).clone() else {
            return Err(self.illegal(op));
        };
        // OpArrayLength's operand is a block whose last member is a runtime array.
        let Some(TypeKind::LlvmArray { count: 0, element }) =
            members.get(position).map(|&m| self.ir.types.kind(m).clone())
        else {
            return Err(self.illegal(op));
        };
        if position + 1 != members.len() {
            return Err(self.illegal(op));
        }
        let offset = self.member_offset(&members, position, packed).ok_or_else(|| self.illegal(op))?;
        let stride = self.alloc_size(element).filter(|&s| s > 0).ok_or_else(|| self.illegal(op))?;
        let ty = self.result_type(op, 0)?;
        let width = match self.ir.types.kind(ty) {
            TypeKind::Integer { width, .. } => *width,
            _ => return Err(self.illegal(op)),
        };

        let i64t = self.int_type(64);
        let bytes = self.buffer_bytes_call(base, i64t);
        // (max(bytes, offset) - offset) / stride, at most the result type's maximum.
        let offset = self.const_int(i128::from(offset), 64);
        let at_least = self.emit_value("llvm.intr.umax", vec![bytes, offset], i64t, vec![]);
        let overflow = vec![("overflowFlags", self.int_attr(0, 32))];
        let room = self.emit_value("llvm.sub", vec![at_least, offset], i64t, overflow);
        let stride = self.const_int(i128::from(stride), 64);
        let count = self.emit_value("llvm.udiv", vec![room, stride], i64t, vec![]);
        let v = if width < 64 {
            let max = self.const_int((1i128 << width) - 1, 64);
            let clamped = self.emit_value("llvm.intr.umin", vec![count, max], i64t, vec![]);
            self.emit_value("llvm.trunc", vec![clamped], ty, vec![("overflowFlags", self.int_attr(0, 32))])
        } else {
            count
        };
        self.replace(op, v);
        Ok(())
    }

    /// The byte offset of member `members[index]` of an LLVM struct (LLVM's layout:
    /// members at their natural alignment unless packed).
    fn member_offset(&self, members: &[Type], index: usize, packed: bool) -> Option<u64> {
        let mut at = 0u64;
        for (i, &m) in members.iter().enumerate().take(index + 1) {
            let align = if packed { 1 } else { self.size_align(m)?.1 };
            at = at.div_ceil(align) * align;
            if i == index {
                return Some(at);
            }
            at = at.checked_add(self.alloc_size(m)?)?;
        }
        None
    }

    /// `call @spirvkit_buffer_bytes(ptr) : (ptr) -> i64`, declared once per symbol table.
    fn buffer_bytes_call(&mut self, base: Value, i64t: Type) -> Value {
        let ptr = self.ir.value_type(base);
        if !self.declare_once(BUFFER_BYTES_FUNCTION) {
            let fn_ty = self.ir.types.llvm_function(i64t, vec![ptr], false);
            let decl = self.ir.create_op("llvm.func", vec![], &[], self.loc.clone());
            let props = vec![
                ("CConv", dialect_attr("llvm.cconv", "ccc")),
                ("function_type", Attribute::Type(fn_ty)),
                ("linkage", dialect_attr("llvm.linkage", "external")),
                ("no_unwind", Attribute::Unit),
                ("sym_name", Attribute::String(BUFFER_BYTES_FUNCTION.to_string())),
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
        let segment = |n: i128| Attribute::Integer { value: n, ty: i32t };
        let props = vec![
            ("CConv", dialect_attr("llvm.cconv", "ccc")),
            ("TailCallKind", dialect_attr("llvm.tailcallkind", "none")),
            ("callee", Attribute::SymbolRef(vec![BUFFER_BYTES_FUNCTION.to_string()])),
            ("fastmathFlags", Converter::fastmath_none()),
            ("no_unwind", Attribute::Unit),
            ("op_bundle_sizes", Attribute::DenseArray { element: i32t, values: vec![] }),
            (
                "operandSegmentSizes",
                Attribute::DenseArray { element: i32t, values: vec![segment(1), segment(0)] },
            ),
            ("will_return", Attribute::Unit),
        ];
        let call = self.emit("llvm.call", vec![base], &[i64t], props);
        self.ir.op(call).results[0]
    }
}
