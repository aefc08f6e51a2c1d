//! Initializer lists and constructors (`{a, b}`, `float4(v2, v2)`): dxc's rule.
//!
//! Every item is evaluated first, in order. The target is then built member by
//! member from the front of that queue: an item whose type is the member's type
//! exactly (a vector of the member's width, a matrix of its shape, the same struct
//! or array) is used whole; a struct or array item that does not fit is split into
//! its members or elements, which join the front of the queue; a vector or matrix
//! item is split into scalars only when a scalar is needed. So `float4 z = {y, y}`
//! loads both `y`s before extracting anything, and `T a[2] = {t0, t1}` uses the
//! structs whole.

use super::{Emitter, R};
use spirvkit_hlsl::ast::{ExprId, ExprKind};
use spirvkit_hlsl::sema::types::{Ty, TypeData};
use spirvkit_ir::ir::Value;
use std::collections::VecDeque;

/// How deep the target type may nest.
const MAX_DEPTH: u32 = 64;

/// The evaluated items not used yet, and the scalars split off the last vector or
/// matrix item.
#[derive(Default)]
pub(super) struct InitQueue {
    /// Items, the next one last.
    items: Vec<(Value, Ty)>,
    scalars: VecDeque<(Value, Ty)>,
}

impl InitQueue {
    fn next_type(&self) -> Option<Ty> {
        self.items.last().map(|&(_, ty)| ty)
    }
}

impl Emitter<'_> {
    /// Evaluates the items of an initializer list of `target` (nested lists
    /// flattened) in order. A (non-literal) scalar item is converted at once to the
    /// scalar of `target` it initializes, as clang's HLSL initialization casts it;
    /// other items are converted piecewise later.
    pub(super) fn evaluate_init_items(&mut self, target: Ty, items: &[ExprId]) -> R<Vec<(Value, Ty)>> {
        let mut slots = Vec::new();
        self.flat_slot_types(target, &mut slots, 0)?;
        let mut out = Vec::new();
        let mut position = 0usize;
        for &item in items {
            self.evaluate_init_item(item, &slots, &mut position, &mut out, 0)?;
        }
        Ok(out)
    }

    fn evaluate_init_item(
        &mut self,
        e: ExprId,
        slots: &[Ty],
        position: &mut usize,
        out: &mut Vec<(Value, Ty)>,
        depth: u32,
    ) -> R<()> {
        if depth > MAX_DEPTH {
            return self.unsupported("initializer lists nested this deep");
        }
        if let ExprKind::InitList(items) = &self.ast.expr(e).kind {
            for &item in items.clone().iter() {
                self.evaluate_init_item(item, slots, position, out, depth + 1)?;
            }
            return Ok(());
        }
        let ty = self.tree.converted_type(e);
        let mut v = self.rvalue(e)?;
        let mut item_ty = ty;
        let plain_scalar = matches!(self.data(ty), TypeData::Scalar(s) if !s.is_literal());
        if plain_scalar {
            if let Some(&slot) = slots.get(*position) {
                if matches!(self.data(slot), TypeData::Scalar(_)) && slot != ty {
                    v = self.convert(v, ty, slot)?;
                    item_ty = slot;
                }
            }
        }
        *position += self.table.flat_count(ty).unwrap_or(1) as usize;
        out.push((v, item_ty));
        Ok(())
    }

    /// The scalar (or opaque) slots of a type in initialization order (the first
    /// 65536: items past them are converted piecewise).
    fn flat_slot_types(&mut self, ty: Ty, out: &mut Vec<Ty>, depth: u32) -> R<()> {
        if depth > MAX_DEPTH || out.len() > 1 << 16 {
            return Ok(());
        }
        match self.data(ty).clone() {
            TypeData::Vector(s, n) => out.extend((0..n).map(|_| self.scalar_ty(s))),
            TypeData::Matrix { elem, rows, cols, .. } => {
                out.extend((0..u32::from(rows) * u32::from(cols)).map(|_| self.scalar_ty(elem)))
            }
            TypeData::Array { elem, len: Some(n) } => {
                for _ in 0..n {
                    self.flat_slot_types(elem, out, depth + 1)?;
                }
            }
            TypeData::Struct(id) => {
                for m in self.lift(crate::layout::struct_members(self.table, id, &self.lower.options()))? {
                    self.flat_slot_types(m, out, depth + 1)?;
                }
            }
            _ => out.push(ty),
        }
        Ok(())
    }

    /// A value of `ty` built from evaluated items by dxc's rule.
    pub(super) fn init_from_items(&mut self, items: Vec<(Value, Ty)>, ty: Ty) -> R<Value> {
        let mut queue = InitQueue { items, scalars: VecDeque::new() };
        queue.items.reverse();
        let v = self.init_for_type(&mut queue, ty, 0)?;
        if !queue.items.is_empty() || !queue.scalars.is_empty() {
            return self.unsupported("an initializer with too many elements");
        }
        Ok(v)
    }

    fn init_for_type(&mut self, q: &mut InitQueue, ty: Ty, depth: u32) -> R<Value> {
        if depth > MAX_DEPTH {
            return self.unsupported("types nested this deep");
        }
        match self.data(ty).clone() {
            TypeData::Scalar(_) | TypeData::Enum(_) => self.init_for_scalar(q, ty, depth),
            TypeData::Vector(s, n) => self.init_for_vector(q, self.scalar_ty(s), u32::from(n), depth),
            TypeData::Matrix { .. } => self.init_for_matrix(q, ty, depth),
            TypeData::Struct(id) => {
                if q.scalars.is_empty() {
                    while self.split_array(q)? {}
                    if q.next_type() == Some(ty) {
                        return self.pop_item(q);
                    }
                    // One split only: a member of the next struct may be of the
                    // struct being built.
                    self.split_struct(q)?;
                }
                let members =
                    self.lift(crate::layout::struct_members(self.table, id, &self.lower.options()))?;
                let mut parts = Vec::with_capacity(members.len());
                for m in members {
                    parts.push(self.init_for_type(q, m, depth + 1)?);
                }
                let t = self.value_type_of(ty)?;
                Ok(self.composite(parts, t))
            }
            TypeData::Array { elem, len: Some(n) } => {
                if q.scalars.is_empty() {
                    while self.split_struct(q)? {}
                    if q.next_type() == Some(ty) {
                        return self.pop_item(q);
                    }
                    self.split_array(q)?;
                }
                let mut parts = Vec::new();
                for _ in 0..n {
                    parts.push(self.init_for_type(q, elem, depth + 1)?);
                }
                let t = self.value_type_of(ty)?;
                Ok(self.composite(parts, t))
            }
            // Resources and other opaque values: an item of exactly the type.
            _ => {
                let (v, from) = match q.scalars.pop_front() {
                    Some(s) => s,
                    None => {
                        while self.split_struct(q)? || self.split_array(q)? {}
                        match q.items.pop() {
                            Some(item) => item,
                            None => return self.unsupported("an initializer with too few elements"),
                        }
                    }
                };
                if from != ty {
                    return self.unsupported(format!(
                        "initializing a '{}' with a '{}'",
                        self.table.display(ty),
                        self.table.display(from)
                    ));
                }
                Ok(v)
            }
        }
    }

    fn pop_item(&mut self, q: &mut InitQueue) -> R<Value> {
        match q.items.pop() {
            Some((v, _)) => Ok(v),
            None => self.unsupported("an initializer with too few elements"),
        }
    }

    /// A scalar of type `to`: the next split-off scalar, else the next item (a vector
    /// or matrix one split into scalars first).
    fn init_for_scalar(&mut self, q: &mut InitQueue, to: Ty, depth: u32) -> R<Value> {
        if depth > MAX_DEPTH {
            return self.unsupported("types nested this deep");
        }
        if let Some((v, from)) = q.scalars.pop_front() {
            return self.convert_leaf(v, from, to);
        }
        while self.split_struct(q)? || self.split_array(q)? {}
        let Some((v, from)) = q.items.pop() else {
            return self.unsupported("an initializer with too few elements");
        };
        if self.is_scalar_like(from) {
            let scalar = self.scalar_of(from);
            return self.convert_leaf(v, scalar, to);
        }
        self.split_into_scalars(q, v, from)?;
        self.init_for_scalar(q, to, depth + 1)
    }

    /// A vector of `count` elements of scalar type `elem` (a scalar when `count` is 1).
    fn init_for_vector(&mut self, q: &mut InitQueue, elem: Ty, count: u32, depth: u32) -> R<Value> {
        if q.scalars.is_empty() {
            while self.split_struct(q)? || self.split_array(q)? {}
            if let Some(from) = q.next_type() {
                if count > 1 && self.vector_width(from) == Some(count) {
                    let (v, from) = q.items.pop().expect("an item");
                    let to = self.vector_of(elem, count);
                    return self.convert_whole(v, from, to);
                }
            }
        }
        if count == 1 {
            return self.init_for_scalar(q, elem, depth + 1);
        }
        let mut parts = Vec::with_capacity(count as usize);
        for _ in 0..count {
            parts.push(self.init_for_scalar(q, elem, depth + 1)?);
        }
        let vector = self.vector_of(elem, count);
        let t = self.ty(vector)?;
        Ok(self.composite(parts, t))
    }

    fn init_for_matrix(&mut self, q: &mut InitQueue, ty: Ty, depth: u32) -> R<Value> {
        let TypeData::Matrix { elem, rows, cols, .. } = self.data(ty).clone() else {
            return self.unsupported("this matrix initializer");
        };
        let (rows, cols) = (u32::from(rows), u32::from(cols));
        if q.scalars.is_empty() {
            while self.split_struct(q)? || self.split_array(q)? {}
            if let Some(from) = q.next_type() {
                if matches!(self.data(from), TypeData::Matrix { rows: r, cols: c, .. } if u32::from(*r) == rows && u32::from(*c) == cols)
                {
                    let (v, from) = q.items.pop().expect("an item");
                    return self.convert_whole(v, from, ty);
                }
            }
        }
        let elem = self.scalar_ty(elem);
        if rows == 1 {
            return self.init_for_vector(q, elem, cols, depth + 1);
        }
        if cols == 1 {
            return self.init_for_vector(q, elem, rows, depth + 1);
        }
        let mut row_values = Vec::with_capacity(rows as usize);
        for _ in 0..rows {
            row_values.push(self.init_for_vector(q, elem, cols, depth + 1)?);
        }
        let t = self.ty(ty)?;
        Ok(self.composite(row_values, t))
    }

    /// Replaces the next item, when it is a struct, by its members.
    fn split_struct(&mut self, q: &mut InitQueue) -> R<bool> {
        let Some(ty) = q.next_type() else { return Ok(false) };
        let TypeData::Struct(id) = self.data(ty).clone() else { return Ok(false) };
        let (v, _) = q.items.pop().expect("an item");
        let members = self.lift(crate::layout::struct_members(self.table, id, &self.lower.options()))?;
        let mut parts = Vec::with_capacity(members.len());
        for (i, m) in members.into_iter().enumerate() {
            let t = self.value_type_of(m)?;
            parts.push((self.extract(v, &[i as u32], t), m));
        }
        q.items.extend(parts.into_iter().rev());
        Ok(true)
    }

    /// Replaces the next item, when it is a sized array, by its elements.
    fn split_array(&mut self, q: &mut InitQueue) -> R<bool> {
        let Some(ty) = q.next_type() else { return Ok(false) };
        let TypeData::Array { elem, len: Some(n) } = self.data(ty).clone() else { return Ok(false) };
        if n > 1 << 16 {
            return self.unsupported("an initializer of an array this large");
        }
        let (v, _) = q.items.pop().expect("an item");
        let t = self.value_type_of(elem)?;
        let mut parts = Vec::with_capacity(n as usize);
        for i in 0..n {
            parts.push((self.extract(v, &[i], t), elem));
        }
        q.items.extend(parts.into_iter().rev());
        Ok(true)
    }

    /// Splits a vector or matrix value into the scalars queue (a matrix row by row,
    /// HLSL's flattening order: `flatten_value`).
    fn split_into_scalars(&mut self, q: &mut InitQueue, v: Value, ty: Ty) -> R<()> {
        if !matches!(self.data(ty), TypeData::Vector(..) | TypeData::Matrix { .. }) {
            return self.unsupported(format!(
                "an initializer item of type '{}' where a scalar is expected",
                self.table.display(ty)
            ));
        }
        let mut scalars = Vec::new();
        self.flatten_value(v, ty, &mut scalars, 0)?;
        q.scalars.extend(scalars);
        Ok(())
    }

    /// A scalar, a one-element vector or a 1x1 matrix.
    fn is_scalar_like(&self, ty: Ty) -> bool {
        match self.data(ty) {
            TypeData::Scalar(_) | TypeData::Enum(_) | TypeData::Vector(_, 1) => true,
            TypeData::Matrix { rows, cols, .. } => *rows == 1 && *cols == 1,
            _ => false,
        }
    }

    /// The scalar type of a scalar-like type.
    fn scalar_of(&self, ty: Ty) -> Ty {
        match self.data(ty) {
            TypeData::Vector(s, _) => self.scalar_ty(*s),
            TypeData::Matrix { elem, .. } => self.scalar_ty(*elem),
            _ => ty,
        }
    }

    /// The width of a vector (or 1xN / Nx1 matrix) type of more than one element.
    fn vector_width(&self, ty: Ty) -> Option<u32> {
        match self.data(ty) {
            TypeData::Vector(_, n) if *n > 1 => Some(u32::from(*n)),
            _ => None,
        }
    }

    /// The vector of `count` elements of scalar type `elem`.
    fn vector_of(&self, elem: Ty, count: u32) -> Ty {
        match self.data(elem) {
            TypeData::Scalar(s) => self.vector_ty(s.concrete(), count),
            _ => elem,
        }
    }

    /// A whole vector or matrix item converted to the target's element type.
    fn convert_whole(&mut self, v: Value, from: Ty, to: Ty) -> R<Value> {
        if from == to {
            return Ok(v);
        }
        self.convert(v, from, to)
    }
}
