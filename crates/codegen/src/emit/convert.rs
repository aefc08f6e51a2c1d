//! Conversions between HLSL types (the seed's cast table), and between a type's plain
//! form and its laid-out form in a buffer.

use super::{Emitter, R};
use crate::layout::LayoutRule;
use spirvkit_hlsl::sema::tree::ConstValue;
use spirvkit_hlsl::sema::types::{Scalar, Ty, TypeData};
use spirvkit_ir::ir::Value;

impl<'t> Emitter<'t> {
    /// Converts a plain value of type `from` to type `to`.
    pub fn convert(&mut self, v: Value, from: Ty, to: Ty) -> R<Value> {
        if from == to {
            return Ok(v);
        }
        let from_c = self.concrete(from);
        let to_c = self.concrete(to);
        if from_c == to_c {
            return Ok(v);
        }
        // Matrices that differ only in majorness are one value type (the layout of
        // memory holds the majorness, not the value).
        if let (
            TypeData::Matrix { elem: fe, rows: fr, cols: fc, .. },
            TypeData::Matrix { elem: te, rows: tr, cols: tc, .. },
        ) = (self.data(from_c), self.data(to_c))
        {
            if (fe, fr, fc) == (te, tr, tc) {
                return Ok(v);
            }
        }
        // ConstantBuffer<T>/TextureBuffer<T> to T: the block's contents.
        if self.is_buffer_object(from_c) {
            if let TypeData::Object { kind, .. } = self.data(from_c).clone() {
                use spirvkit_hlsl::sema::types::Family;
                if matches!(kind.family(), Family::ConstantBuffer | Family::TextureBuffer) {
                    let inner = self.object_element(from_c);
                    let bk = if kind.family() == Family::ConstantBuffer {
                        crate::layout::BufferKind::ConstantBuffer
                    } else {
                        crate::layout::BufferKind::TextureBuffer
                    };
                    let rule = LayoutRule::for_buffer(bk, self.options.layout);
                    // A global's place already reads as T (plain); a pointer held by a
                    // local still needs its load.
                    let is_pointer = matches!(
                        self.lower.store().kind(self.ir.value_type(v)),
                        spirvkit_ir::types::TypeKind::Pointer { .. }
                    );
                    if !is_pointer {
                        return self.convert(v, inner, to_c);
                    }
                    // Through an access chain: the logical addressing model loads only
                    // from pointers an instruction like it returns, never straight from
                    // one loaded from a variable. A global variable loads directly.
                    let block = self.pointee(v);
                    let direct = self.def_op(v).is_some_and(|op| {
                        matches!(self.ir.op(op).name.as_str(), "spirv.AccessChain" | "spirv.mlir.addressof")
                    });
                    let whole = match block {
                        // An element of an array of views is a chain already.
                        Some(_) if direct => v,
                        Some(block) => self.access_chain(v, Vec::new(), block),
                        None => v,
                    };
                    let loaded = self.load(whole);
                    // dxc's flat conversion of the block's contents (decomposed from
                    // the laid-out value) even to the block's own type.
                    return self.flat_convert(loaded, inner, Some(rule), to_c);
                }
            }
        }
        if matches!(self.data(from_c), TypeData::Object { .. })
            || matches!(self.data(to_c), TypeData::Object { .. })
        {
            return self.unsupported(format!(
                "conversion from '{}' to '{}'",
                self.table.display(from),
                self.table.display(to)
            ));
        }
        let ft = self.value_type_of(from_c)?;
        let tt = self.value_type_of(to_c)?;
        let (fd, td) = (self.data(from_c).clone(), self.data(to_c).clone());
        if let (
            TypeData::Matrix { elem: fs, rows: fr, cols: fc, .. },
            TypeData::Matrix { elem: ts, rows: tr, cols: tc, .. },
        ) = (&fd, &td)
        {
            let (from_shape, to_shape) = ((u32::from(*fr), u32::from(*fc)), (u32::from(*tr), u32::from(*tc)));
            if to_shape != from_shape && to_shape.0 <= from_shape.0 && to_shape.1 <= from_shape.1 {
                return self.truncate_matrix(v, (*fs, from_shape), (*ts, to_shape), tt);
            }
        }
        // A 2x2 matrix to a 4-vector: its rows joined by one shuffle, then converted.
        if let (Some((fs, 2, 2)), Some((ts, 4))) = (self.matrix_shape(from_c), self.scalar_shape(to_c)) {
            let row_ty = self.store_row_type(ft);
            let row0 = self.extract(v, &[0], row_ty);
            let row1 = self.extract(v, &[1], row_ty);
            let joined_ty = self.vector_ty(fs, 4);
            let jt = self.ty(joined_ty)?;
            let joined = self.shuffle(row0, row1, &[0, 1, 2, 3], jt);
            return self.convert_components(joined, fs, ts, 4);
        }
        // Same shape (scalar/vector): component conversion.
        if let (Some((fs, fnn)), Some((ts, tn))) = (self.scalar_shape(from_c), self.scalar_shape(to_c)) {
            if fnn == tn {
                return self.convert_components(v, fs, ts, tn);
            }
            if fnn == 1 {
                // Splat.
                let x = self.convert_components(v, fs, ts, 1)?;
                return Ok(self.construct(vec![x; tn as usize], tt));
            }
            if tn < fnn {
                // Truncation. Of a constant to a vector: a constant (dxc evaluates the
                // cast; to a scalar it extracts).
                if tn > 1 && fs == ts && matches!(td, TypeData::Vector(..)) {
                    if let Some(spirvkit_ir::attr::Attribute::Dense { elements, .. }) = self.constant_value(v)
                    {
                        let kept = elements.into_iter().take(tn as usize).collect();
                        return Ok(self.constant_attr(
                            spirvkit_ir::attr::Attribute::Dense { elements: kept, ty: tt },
                            tt,
                        ));
                    }
                }
                // Else dxc extracts the components kept and constructs the vector.
                let truncated_ty = self.vector_ty(fs, tn);
                let cut = if tn == 1 {
                    self.select_components(v, from_c, &[0], truncated_ty)?
                } else {
                    let et = self.ty(self.scalar_ty(fs))?;
                    let parts: Vec<Value> = (0..tn).map(|i| self.extract(v, &[i], et)).collect();
                    let t = self.ty(truncated_ty)?;
                    self.composite(parts, t)
                };
                return self.convert_components(cut, fs, ts, tn);
            }
        }
        // Scalar to matrix: splat every row.
        if let (Some((fs, 1)), Some((ts, rows, cols))) = (self.scalar_shape(from_c), self.matrix_shape(to_c))
        {
            let x = self.convert_components(v, fs, ts, 1)?;
            let row_ty = self.store_row_type(tt);
            let row = self.construct(vec![x; cols as usize], row_ty);
            // A constant splat is a constant even when the matrix is an array of
            // vectors (non-float matrices), as dxc writes it.
            if let (
                Some(row_value @ spirvkit_ir::attr::Attribute::Dense { .. }),
                spirvkit_ir::types::TypeKind::Array { .. },
            ) = (self.constant_value(row), self.lower.store().kind(tt).clone())
            {
                return Ok(self
                    .constant_attr(spirvkit_ir::attr::Attribute::Array(vec![row_value; rows as usize]), tt));
            }
            return Ok(self.construct(vec![row; rows as usize], tt));
        }
        // Matrix to matrix of the same shape: row by row.
        if let (Some((fs, fr, fc)), Some((ts, tr, tc))) = (self.matrix_shape(from_c), self.matrix_shape(to_c))
        {
            if (fr, fc) == (tr, tc) {
                let from_row = self.store_row_type(ft);
                let mut rows = Vec::new();
                for r in 0..fr {
                    let row = self.extract(v, &[r], from_row);
                    rows.push(self.convert_components(row, fs, ts, fc)?);
                }
                return Ok(self.construct(rows, tt));
            }
            if tr <= fr && tc <= fc {
                // Truncation: the top-left block.
                let from_row = self.store_row_type(ft);
                let row_from_ty = self.vector_ty(fs, fc);
                let row_to_ty = self.vector_ty(fs, tc);
                let comps: Vec<u32> = (0..tc).collect();
                let mut rows = Vec::new();
                for r in 0..tr {
                    let row = self.extract(v, &[r], from_row);
                    let cut = self.select_components(row, row_from_ty, &comps, row_to_ty)?;
                    rows.push(self.convert_components(cut, fs, ts, tc)?);
                }
                return Ok(self.construct(rows, tt));
            }
        }
        let _ = (fd, td);
        // Everything else (struct/array/vector<->matrix of equal size, truncation to
        // a scalar of an aggregate, a scalar splat into an aggregate): dxc's flat
        // conversion.
        self.flat_convert(v, from_c, None, to_c)
    }

    /// dxc's flat conversion of `v` (of HLSL type `from`, laid out by `layout` when
    /// it was loaded whole from a buffer) to `to`: a scalar is converted once per
    /// vector, array or member it fills and replicated; a struct to a struct with the
    /// same member types is rebuilt member by member; anything else is decomposed to
    /// its scalars (each level's elements extracted before the next level's) and
    /// rebuilt from them.
    pub fn flat_convert(&mut self, v: Value, from: Ty, layout: Option<LayoutRule>, to: Ty) -> R<Value> {
        if layout.is_none() && self.scalar_shape(from).is_some_and(|(_, n)| n == 1) {
            if let Some(splat) = self.splat_flat(v, from, to, 0)? {
                return Ok(splat);
            }
        }
        if layout.is_none() {
            if let Some(rebuilt) = self.struct_to_same_struct(v, from, to)? {
                return Ok(rebuilt);
            }
        }
        let mut leaves = Vec::new();
        self.decompose_for_cast(v, from, layout, &mut leaves, 0)?;
        let Some(needed) = self.table.flat_count(to) else {
            return self.unsupported(format!(
                "conversion from '{}' to '{}'",
                self.table.display(from),
                self.table.display(to)
            ));
        };
        if (leaves.len() as u32) < needed {
            if leaves.len() == 1 {
                // Splat of a scalar into an aggregate with bit-fields.
                let one = leaves[0];
                leaves = vec![one; needed as usize];
            } else {
                return self.unsupported(format!(
                    "conversion from '{}' to '{}'",
                    self.table.display(from),
                    self.table.display(to)
                ));
            }
        }
        let mut iter = leaves.into_iter();
        self.build_from_flat(to, &mut iter, 0)
    }

    /// A scalar `x` of type `from` splat into `to` as dxc's flat conversion does:
    /// converted once per vector (and matrix row), each array's element built once and
    /// repeated, each struct member built on its own. `None` for structs with
    /// bit-fields (filled leaf by leaf).
    fn splat_flat(&mut self, x: Value, from: Ty, to: Ty, depth: u32) -> R<Option<Value>> {
        if depth > 64 {
            return self.unsupported("types nested this deep");
        }
        let to = self.concrete(to);
        let t = self.value_type_of(to)?;
        Ok(Some(match self.data(to).clone() {
            TypeData::Scalar(_) | TypeData::Enum(_) => self.convert_leaf(x, from, to)?,
            TypeData::Vector(s, n) => {
                let e = self.convert_leaf(x, from, self.scalar_ty(s))?;
                if n == 1 {
                    e
                } else {
                    self.composite(vec![e; usize::from(n)], t)
                }
            }
            TypeData::Matrix { elem, rows, cols, .. } => {
                let e = self.convert_leaf(x, from, self.scalar_ty(elem))?;
                let (rows, cols) = (usize::from(rows), usize::from(cols));
                if rows == 1 || cols == 1 {
                    if rows * cols == 1 {
                        e
                    } else {
                        self.composite(vec![e; rows * cols], t)
                    }
                } else {
                    let row_ty = self.store_row_type(t);
                    let row = self.composite(vec![e; cols], row_ty);
                    self.composite(vec![row; rows], t)
                }
            }
            TypeData::Array { elem, len: Some(n) } => {
                let Some(e) = self.splat_flat(x, from, elem, depth + 1)? else { return Ok(None) };
                self.composite(vec![e; n as usize], t)
            }
            TypeData::Struct(id) => {
                let storage =
                    self.lift(crate::layout::struct_storage(self.table, id, &self.lower.options()))?;
                if storage.slots.iter().any(|s| s.bit_field.is_some()) {
                    return Ok(None);
                }
                let mut parts = Vec::new();
                for m in self.hlsl_members(id)? {
                    let Some(part) = self.splat_flat(x, from, m, depth + 1)? else { return Ok(None) };
                    parts.push(part);
                }
                self.composite(parts, t)
            }
            _ => return Ok(None),
        }))
    }

    /// A struct converted to another struct whose members have the same types: each
    /// member extracted and the target built from them (dxc does not decompose it).
    fn struct_to_same_struct(&mut self, v: Value, from: Ty, to: Ty) -> R<Option<Value>> {
        let (TypeData::Struct(fid), TypeData::Struct(tid)) = (self.data(from).clone(), self.data(to).clone())
        else {
            return Ok(None);
        };
        let (fm, tm) = (self.hlsl_members(fid)?, self.hlsl_members(tid)?);
        let same =
            fm.len() == tm.len() && fm.iter().zip(&tm).all(|(&a, &b)| self.concrete(a) == self.concrete(b));
        let options = self.lower.options();
        let fs = self.lift(crate::layout::struct_storage(self.table, fid, &options))?;
        let ts = self.lift(crate::layout::struct_storage(self.table, tid, &options))?;
        if !same
            || fs.slots.iter().chain(&ts.slots).any(|s| s.bit_field.is_some())
            || fs.slots.len() != fm.len()
        {
            return Ok(None);
        }
        let mut parts = Vec::new();
        for (slot, m) in fs.slots.into_iter().zip(fm) {
            let mt = self.value_type_of(m)?;
            parts.push(self.extract(v, &[slot.member], mt));
        }
        let t = self.value_type_of(to)?;
        Ok(Some(self.composite(parts, t)))
    }

    /// The scalars (and opaque leaves) of `v` for a flat conversion, in HLSL's
    /// flattening order: an array's or struct's elements are all extracted before
    /// each is decomposed (dxc's order). A value laid out by `layout` is extracted
    /// with its laid-out types; its scalar, vector and matrix parts are brought to
    /// their plain form first.
    fn decompose_for_cast(
        &mut self,
        v: Value,
        ty: Ty,
        layout: Option<LayoutRule>,
        out: &mut Vec<(Value, Ty)>,
        depth: u32,
    ) -> R<()> {
        if depth > 64 {
            return self.unsupported("types nested this deep");
        }
        match self.data(ty).clone() {
            TypeData::Array { elem, len: Some(n) } => {
                let et = self.ty_in(elem, layout)?;
                let parts: Vec<Value> = (0..n).map(|i| self.extract(v, &[i], et)).collect();
                for x in parts {
                    self.decompose_for_cast(x, elem, layout, out, depth + 1)?;
                }
                Ok(())
            }
            TypeData::Struct(id) if layout.is_some() => {
                // Laid-out structs have no bit-field packing differences to mind here:
                // their members are the stored members, extracted by index.
                let storage =
                    self.lift(crate::layout::struct_storage(self.table, id, &self.lower.options()))?;
                if storage.slots.iter().any(|s| s.bit_field.is_some()) {
                    let plain = self.relayout_plain(v, ty, layout)?;
                    return self.flatten_value(plain, ty, out, depth);
                }
                let members = self.hlsl_members(id)?;
                let mut parts = Vec::new();
                for (slot, m) in storage.slots.iter().zip(&members) {
                    let mt = self.ty_in(*m, layout)?;
                    parts.push(self.extract(v, &[slot.member], mt));
                }
                for (x, m) in parts.into_iter().zip(members) {
                    self.decompose_for_cast(x, m, layout, out, depth + 1)?;
                }
                Ok(())
            }
            TypeData::Struct(id) => {
                let storage =
                    self.lift(crate::layout::struct_storage(self.table, id, &self.lower.options()))?;
                if storage.slots.iter().any(|s| s.bit_field.is_some()) {
                    return self.flatten_value(v, ty, out, depth);
                }
                let members = self.hlsl_members(id)?;
                let mut parts = Vec::new();
                for (slot, m) in storage.slots.iter().zip(&members) {
                    let mt = self.value_type_of(*m)?;
                    parts.push(self.extract(v, &[slot.member], mt));
                }
                for (x, m) in parts.into_iter().zip(members) {
                    self.decompose_for_cast(x, m, None, out, depth + 1)?;
                }
                Ok(())
            }
            _ => {
                let plain = self.relayout_plain(v, ty, layout)?;
                self.flatten_value(plain, ty, out, depth)
            }
        }
    }

    /// `v` in its plain form (laid out by `layout`, or plain already).
    fn relayout_plain(&mut self, v: Value, ty: Ty, layout: Option<LayoutRule>) -> R<Value> {
        match layout {
            Some(rule) => self.plain_of_laid_out(v, ty, rule),
            None => Ok(v),
        }
    }

    /// A matrix cut to its top-left `to` rows and columns, as dxc: each kept row
    /// extracted, cut by a shuffle (one column: its first element), converted, and the
    /// rows (or their elements) composed. A 1xN or Nx1 matrix is a vector here.
    fn truncate_matrix(
        &mut self,
        v: Value,
        (fs, (fr, fc)): (Scalar, (u32, u32)),
        (ts, (tr, tc)): (Scalar, (u32, u32)),
        tt: spirvkit_ir::types::Type,
    ) -> R<Value> {
        let scalar_t = self.ty(self.scalar_ty(fs))?;
        let row_t = self.ty(self.vector_ty(fs, fc))?;
        let cut_t = self.ty(self.vector_ty(fs, tc))?;
        let keep: Vec<u32> = (0..tc).collect();
        let mut parts = Vec::with_capacity(tr as usize);
        for r in 0..tr {
            let row = if fr == 1 {
                v
            } else if fc == 1 {
                self.extract(v, &[r], scalar_t)
            } else {
                self.extract(v, &[r], row_t)
            };
            let cut = if tc == fc {
                row
            } else if tc == 1 {
                self.extract(row, &[0], scalar_t)
            } else {
                self.shuffle(row, row, &keep, cut_t)
            };
            parts.push(self.convert_components(cut, fs, ts, tc)?);
        }
        Ok(match parts.as_slice() {
            [one] => *one,
            _ if tc == 1 => {
                let t = self.ty(self.vector_ty(ts, tr))?;
                self.construct(parts, t)
            }
            _ => self.construct(parts, tt),
        })
    }

    /// Converts the `n` components of a scalar or vector value from `from` to `to`.
    pub fn convert_components(&mut self, v: Value, from: Scalar, to: Scalar, n: u32) -> R<Value> {
        let (from, to) = (from.concrete(), to.concrete());
        let to_ty = self.vector_ty(to, n);
        let tt = self.ty(to_ty)?;
        let sixteen = self.options.lower.sixteen_bit_types;
        let same_lowered = {
            let a = self.vector_ty(from, n);
            let at = self.ty(a)?;
            at == tt
        };
        if from == to || same_lowered {
            return Ok(v);
        }
        if from == Scalar::Bool {
            let one = if to.is_float() { ConstValue::Float(1.0) } else { ConstValue::Int(1) };
            let zero = if to.is_float() { ConstValue::Float(0.0) } else { ConstValue::Int(0) };
            let a = self.splat_constant(one, tt);
            let b = self.splat_constant(zero, tt);
            return Ok(self.val("spirv.Select", vec![v, a, b], tt));
        }
        if to == Scalar::Bool {
            let from_ty = self.vector_ty(from, n);
            let ft = self.ty(from_ty)?;
            if from.is_float() {
                let zero = self.splat_constant(ConstValue::Float(0.0), ft);
                return Ok(self.val("spirv.FOrdNotEqual", vec![v, zero], tt));
            }
            let zero = self.splat_constant(ConstValue::Int(0), ft);
            return Ok(self.val("spirv.INotEqual", vec![v, zero], tt));
        }
        let (fb, tb) = (from.bits(sixteen), to.bits(sixteen));
        let name = match (from.is_float(), to.is_float()) {
            (true, true) => "spirv.FConvert",
            (true, false) if to.is_signed() => "spirv.ConvertFToS",
            (true, false) => "spirv.ConvertFToU",
            (false, true) if from.is_signed() => "spirv.ConvertSToF",
            (false, true) => "spirv.ConvertUToF",
            (false, false) => {
                if fb == tb {
                    "spirv.Bitcast"
                } else if from.is_signed() {
                    // Widen or narrow keeping the source's signedness, then bitcast.
                    let mid_ty = self.vector_ty(from.with_width(tb), n);
                    let mt = self.ty(mid_ty)?;
                    let w = self.val("spirv.SConvert", vec![v], mt);
                    return if mt == tt { Ok(w) } else { Ok(self.val("spirv.Bitcast", vec![w], tt)) };
                } else {
                    let mid_ty = self.vector_ty(from.with_width(tb), n);
                    let mt = self.ty(mid_ty)?;
                    let w = self.val("spirv.UConvert", vec![v], mt);
                    return if mt == tt { Ok(w) } else { Ok(self.val("spirv.Bitcast", vec![w], tt)) };
                }
            }
        };
        Ok(self.val(name, vec![v], tt))
    }

    /// The plain form of a value loaded from a buffer laid out by `rule`.
    pub fn plain_of_laid_out(&mut self, v: Value, ty: Ty, rule: LayoutRule) -> R<Value> {
        self.relayout(v, ty, Some(rule), None, 0)
    }

    /// The form of a plain value to store into a buffer laid out by `rule`.
    pub fn laid_out_of_plain(&mut self, v: Value, ty: Ty, rule: LayoutRule) -> R<Value> {
        self.relayout(v, ty, None, Some(rule), 0)
    }

    fn relayout(
        &mut self,
        v: Value,
        ty: Ty,
        from: Option<LayoutRule>,
        to: Option<LayoutRule>,
        depth: u32,
    ) -> R<Value> {
        if depth > 64 {
            return self.unsupported("types nested this deep");
        }
        if let TypeData::Object { .. } = self.data(ty) {
            return Ok(v);
        }
        let ft = self.ty_in(ty, from)?;
        let tt = self.ty_in(ty, to)?;
        if ft == tt {
            return Ok(v);
        }
        match self.data(ty).clone() {
            TypeData::Scalar(_) | TypeData::Vector(..) | TypeData::Enum(_) | TypeData::Matrix { .. }
                if self.table.component(ty) == Some(Scalar::Bool) =>
            {
                // bool is a 32-bit integer in buffers.
                if let Some((_, rows, _)) = self.matrix_shape(ty) {
                    let (fr, tr) = (self.store_row_type(ft), self.store_row_type(tt));
                    let (_, _, cols) = self.matrix_shape(ty).unwrap_or((Scalar::Bool, 1, 1));
                    let mut out = Vec::new();
                    for r in 0..rows {
                        let row = self.extract(v, &[r], fr);
                        out.push(self.bool_relayout(row, cols, from.is_some(), tr)?);
                    }
                    return Ok(self.construct(out, tt));
                }
                let (_, n) = self.scalar_shape(ty).unwrap_or((Scalar::Bool, 1));
                self.bool_relayout(v, n, from.is_some(), tt)
            }
            TypeData::Matrix { .. } => {
                // Non-float matrices are arrays of rows in buffers, matrices are not:
                // rebuild row by row.
                let Some((_, rows, _)) = self.matrix_shape(ty) else { return Ok(v) };
                let (fr, tr) = (self.store_row_type(ft), self.store_row_type(tt));
                let mut out = Vec::new();
                for r in 0..rows {
                    let row = self.extract(v, &[r], fr);
                    let row = if fr == tr { row } else { self.val("spirv.Bitcast", vec![row], tr) };
                    out.push(row);
                }
                Ok(self.construct(out, tt))
            }
            TypeData::Array { elem, len: Some(n) } => {
                let fe = self.ty_in(elem, from)?;
                let mut out = Vec::new();
                for i in 0..n {
                    let x = self.extract(v, &[i], fe);
                    out.push(self.relayout(x, elem, from, to, depth + 1)?);
                }
                Ok(self.construct(out, tt))
            }
            TypeData::Struct(id) => {
                let members =
                    self.lift(crate::layout::struct_members(self.table, id, &self.lower.options()))?;
                let mut out = Vec::new();
                for (i, m) in members.into_iter().enumerate() {
                    let fm = self.ty_in(m, from)?;
                    let x = self.extract(v, &[i as u32], fm);
                    out.push(self.relayout(x, m, from, to, depth + 1)?);
                }
                Ok(self.construct(out, tt))
            }
            _ => Ok(v),
        }
    }

    /// bool <-> uint of `n` components (`from_buffer`: uint -> bool).
    fn bool_relayout(
        &mut self,
        v: Value,
        n: u32,
        from_buffer: bool,
        to_type: spirvkit_ir::types::Type,
    ) -> R<Value> {
        if from_buffer {
            let ut = self.u32_type();
            let uv = self.vec_type(ut, n);
            let zero = self.splat_constant(ConstValue::Int(0), uv);
            Ok(self.val("spirv.INotEqual", vec![v, zero], to_type))
        } else {
            let one = self.splat_constant(ConstValue::Int(1), to_type);
            let zero = self.splat_constant(ConstValue::Int(0), to_type);
            Ok(self.val("spirv.Select", vec![v, one, zero], to_type))
        }
    }
}

trait WithWidth {
    fn with_width(self, bits: u32) -> Scalar;
}

impl WithWidth for Scalar {
    /// The integer type of the same signedness and `bits` width.
    fn with_width(self, bits: u32) -> Scalar {
        match (self.is_signed(), bits) {
            (true, 16) => Scalar::Int16,
            (true, 64) => Scalar::Int64,
            (true, _) => Scalar::Int,
            (false, 16) => Scalar::UInt16,
            (false, 64) => Scalar::UInt64,
            (false, _) => Scalar::UInt,
        }
    }
}
