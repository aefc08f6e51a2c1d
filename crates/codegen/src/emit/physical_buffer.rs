//! Memory reached by address (SPV_KHR_physical_storage_buffer): `vk::RawBufferLoad`
//! and `vk::RawBufferStore` (SPIR-V.rst, "RawBufferLoad and RawBufferStore"). The
//! address becomes a `PhysicalStorageBuffer` pointer to the value's type laid out as
//! a storage buffer's (dxc's relaxed std430), read or written with the alignment
//! given (4 by default); the module then addresses `PhysicalStorageBuffer64`.

use super::{Emitter, R};
use crate::builder::{enum_attr, i32_attr, prop};
use crate::layout::LayoutRule;
use spirvkit_hlsl::ast::ExprId;
use spirvkit_hlsl::sema::tree::CallInfo;
use spirvkit_hlsl::sema::types::{Scalar, Ty};
use spirvkit_ir::ir::Value;

/// The layout of what an address points to (dxc's default for storage buffers).
const PHYSICAL_RULE: LayoutRule = LayoutRule::RelaxedStd430;

impl Emitter<'_> {
    /// Declares the module's use of physical addresses: the capability, its
    /// extension, and the `PhysicalStorageBuffer64` addressing model.
    pub(super) fn use_physical_addresses(&mut self) {
        self.require("PhysicalStorageBufferAddresses", Some("SPV_KHR_physical_storage_buffer"));
        self.physical_addressing = true;
    }

    /// The alignment argument `i` of a raw buffer access (a constant power of two),
    /// or 4 when it is not given.
    fn raw_buffer_alignment(&self, args: &[ExprId], i: usize) -> R<u32> {
        let Some(&a) = args.get(i) else { return Ok(4) };
        let value = self.tree.expr(a).and_then(|info| info.constant).and_then(|c| c.as_int());
        match value.and_then(|v| u32::try_from(v).ok()).filter(|v| v.is_power_of_two()) {
            Some(v) => Ok(v),
            None => self.unsupported("a raw buffer alignment that is not a constant power of two"),
        }
    }

    /// The type a value of type `ty` is stored as in memory: bools as uints.
    fn stored_type(&self, ty: Ty) -> R<Ty> {
        if self.table.component(ty) != Some(Scalar::Bool) {
            return Ok(ty);
        }
        match self.scalar_shape(ty) {
            Some((_, n)) => Ok(self.vector_ty(Scalar::UInt, n)),
            None => self.unsupported(format!("a raw buffer access of type '{}'", self.table.display(ty))),
        }
    }

    /// A `PhysicalStorageBuffer` pointer to `stored` (laid out) at `address`.
    fn physical_pointer(&mut self, address: Value, stored: Ty) -> R<(Value, spirvkit_ir::types::Type)> {
        self.use_physical_addresses();
        let t = self.ty_in(stored, Some(PHYSICAL_RULE))?;
        let ptr_t = self.pointer(t, "PhysicalStorageBuffer");
        Ok((self.val("spirv.Bitcast", vec![address], ptr_t), t))
    }

    /// The memory operands of an access with `alignment`.
    fn aligned(&mut self, alignment: u32) -> Vec<spirvkit_ir::attr::NamedAttribute> {
        vec![
            prop("alignment", i32_attr(self.store(), i64::from(alignment))),
            prop("memory_access", enum_attr("memory_access", "Aligned")),
        ]
    }

    /// `vk::RawBufferLoad<T>(address, alignment = 4)`.
    pub(super) fn raw_buffer_load(&mut self, args: &[ExprId], call: &CallInfo) -> R<Value> {
        let address = self.arg_value(args, call, 0)?;
        let alignment = self.raw_buffer_alignment(args, 1)?;
        let stored = self.stored_type(call.ret)?;
        let (ptr, t) = self.physical_pointer(address, stored)?;
        let props = self.aligned(alignment);
        let loaded = self.val_props("spirv.Load", vec![ptr], t, props);
        let plain = self.plain_of_laid_out(loaded, stored, PHYSICAL_RULE)?;
        self.convert(plain, stored, call.ret)
    }

    /// `vk::RawBufferStore<T>(address, value, alignment = 4)`.
    pub(super) fn raw_buffer_store(&mut self, args: &[ExprId], call: &CallInfo) -> R<Value> {
        let address = self.arg_value(args, call, 0)?;
        let ty = self.param_ty(call, 1);
        let value = self.arg_value(args, call, 1)?;
        let alignment = self.raw_buffer_alignment(args, 2)?;
        let stored = self.stored_type(ty)?;
        let value = self.convert(value, ty, stored)?;
        let (ptr, _) = self.physical_pointer(address, stored)?;
        let laid_out = self.laid_out_of_plain(value, stored, PHYSICAL_RULE)?;
        let props = self.aligned(alignment);
        self.effect("spirv.Store", vec![ptr, laid_out], props);
        let vt = self.void_type();
        Ok(self.undef(vt))
    }
}
