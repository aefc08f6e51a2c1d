//! Diagnostics code generation reports without stopping, as dxc's SPIR-V backend does
//! (it reports every error of a pass, then gives up), and the checks of rules dxc
//! enforces while emitting, in dxc's words.

use super::{CodegenDiagnostic, Emitter, R};
use crate::types::CodegenError;
use spirvkit_hlsl::ast::{Annotation, DeclId, DeclKind};
use spirvkit_hlsl::ast::{ExprId, ExprKind};
use spirvkit_hlsl::diag::Diagnostic;
use spirvkit_hlsl::sema::tree::GlobalStorage;
use spirvkit_hlsl::sema::tree::Stage;
use spirvkit_hlsl::sema::types::{Family, Majorness, Ty, TypeData};
use spirvkit_hlsl::source::Span;
use std::collections::HashSet;

impl Emitter<'_> {
    /// Reports an error and goes on generating code; the compile fails at the end.
    pub(crate) fn report_error(&mut self, span: Option<Span>, message: impl Into<String>) {
        self.reported.push(Diagnostic::error(span, message));
    }

    /// Reports a warning (`-Wflag`).
    pub(crate) fn report_warning(
        &mut self,
        span: Option<Span>,
        flag: &'static str,
        message: impl Into<String>,
    ) {
        self.reported.push(Diagnostic::warning(span, flag, message));
    }

    /// The span of a method call's name (`t.GatherCmpRed(...)`: `GatherCmpRed`), where
    /// dxc reports what is wrong with the method.
    pub(crate) fn method_name_span(&self, call_expr: ExprId) -> Option<Span> {
        let ExprKind::Call { callee, .. } = &self.ast.expr(call_expr).kind else { return None };
        match &self.ast.expr(*callee).kind {
            ExprKind::Member { member, .. } => Some(member.span),
            _ => None,
        }
    }

    /// Implicit-lod sampling needs derivatives: only fragment and compute shaders
    /// have them (dxc reports each such call and goes on).
    pub(crate) fn check_implicit_lod_stage(&mut self) {
        let stage = self.entry.as_ref().map(|e| e.stage);
        if !matches!(stage, Some(Stage::Pixel | Stage::Compute)) {
            self.report_error(
                self.span,
                "sampling with implicit lod is only allowed in fragment and compute shaders",
            );
        }
    }

    /// Where dxc reports what is wrong with a declaration: its name.
    pub(crate) fn decl_name_span(&self, d: DeclId) -> Span {
        let decl = self.ast.decl(d);
        match &decl.kind {
            DeclKind::Var(v) => v.name.map_or(decl.span, |n| n.span),
            _ => decl.span,
        }
    }

    /// An error dxc reports in these words, at the construct being emitted.
    pub(crate) fn rejected_here<T>(&self, message: impl Into<String>) -> R<T> {
        Err(CodegenDiagnostic { span: self.span, error: CodegenError::Rejected { message: message.into() } })
    }

    fn rejected_at<T>(&self, span: Span, message: impl Into<String>) -> R<T> {
        Err(CodegenDiagnostic { span: Some(span), error: CodegenError::Rejected { message: message.into() } })
    }

    /// The resource globals dxc cannot translate, in its words: structs mixing
    /// resources and plain data or holding buffers, sampler feedback textures, and
    /// multi-dimensional arrays of buffers with counters.
    pub(crate) fn check_resource_global(&self, d: DeclId, ty: Ty) -> R<()> {
        let at = self.decl_name_span(d);
        let mut base = ty;
        let mut dims = 0;
        while let TypeData::Array { elem, .. } = self.data(base) {
            base = *elem;
            dims += 1;
        }
        match self.data(base) {
            TypeData::Struct(_) => {
                let mut found = ResourceContents::default();
                self.resource_contents(base, &mut found, 0);
                if found.resources && found.plain {
                    return self.rejected_at(
                        at,
                        "global structures containing both resources and non-resources are not supported",
                    );
                }
                if found.buffers {
                    return self.rejected_at(at, "global structures containing buffers are not supported");
                }
            }
            TypeData::Object { kind, .. } => {
                let family = kind.family();
                if family == Family::FeedbackTexture {
                    return self.rejected_at(
                        at,
                        format!("Texture resource type '{}' is not supported with -spirv", kind.name()),
                    );
                }
                if dims > 1
                    && matches!(
                        family,
                        Family::RWStructuredBuffer | Family::AppendBuffer | Family::ConsumeBuffer
                    )
                {
                    return self.rejected_at(
                        at,
                        "Multi-dimensional arrays of RW/append/consume structured buffers are unsupported in Vulkan",
                    );
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// What a struct holds, through nested structs and arrays.
    fn resource_contents(&self, ty: Ty, found: &mut ResourceContents, depth: u32) {
        if depth > 64 {
            return;
        }
        match self.data(ty) {
            TypeData::Array { elem, .. } => self.resource_contents(*elem, found, depth + 1),
            TypeData::Struct(sid) => {
                let Some(info) = self.table.struct_info(*sid) else { return };
                for base in &info.bases {
                    self.resource_contents(*base, found, depth + 1);
                }
                for field in &info.fields {
                    self.resource_contents(field.ty, found, depth + 1);
                }
            }
            TypeData::Object { kind, .. } => {
                found.resources = true;
                if !matches!(
                    kind.family(),
                    Family::Texture | Family::RWTexture | Family::Sampler | Family::ComparisonSampler
                ) {
                    found.buffers = true;
                }
            }
            _ => found.plain = true,
        }
    }

    /// Initializers of `cbuffer`/`tbuffer` members (static ones too) have no Vulkan
    /// equivalent: dxc warns at each (unless `-Wno-vk-ignored-features`) and drops it.
    pub(crate) fn check_buffer_member_initializers(
        &mut self,
        kind: spirvkit_hlsl::ast::BufferKind,
        members: &[DeclId],
    ) {
        let keyword = match kind {
            spirvkit_hlsl::ast::BufferKind::CBuffer => "cbuffer",
            spirvkit_hlsl::ast::BufferKind::TBuffer => "tbuffer",
        };
        if self.options.no_warn_ignored_features {
            return;
        }
        for &m in members {
            let DeclKind::Var(v) = &self.ast.decl(m).kind else { continue };
            if let Some(init) = v.init {
                let span = Some(self.ast.expr(init).span);
                self.report_warning(
                    span,
                    "",
                    format!("{keyword} member initializer ignored since no Vulkan equivalent"),
                );
            }
        }
    }

    /// The members of `$Globals`: their initializers are ignored (a warning) and
    /// they cannot take `[[vk::binding]]` (an error), as dxc reports.
    pub(crate) fn check_globals_members(&mut self, members: &[DeclId]) {
        for &m in members {
            let decl = self.ast.decl(m);
            let DeclKind::Var(v) = &decl.kind else { continue };
            let name = v.name.map_or("", |n| self.ast.name(n.name)).to_string();
            if let Some(init) = v.init {
                if !self.options.no_warn_ignored_features {
                    let span = Some(self.ast.expr(init).span);
                    self.report_warning(
                        span,
                        "",
                        format!("variable '{name}' will be placed in $Globals so initializer ignored"),
                    );
                }
            }
            let binding = decl.attrs.iter().find(|a| {
                a.namespace.is_some_and(|n| self.ast.name(n.name) == "vk")
                    && self.ast.name(a.name.name) == "binding"
            });
            if let Some(a) = binding {
                let span = a.namespace.map_or(a.name.span, |n| n.span);
                self.report_error(
                    Some(span),
                    format!(
                        "variable '{name}' will be placed in $Globals so cannot have vk::binding attribute"
                    ),
                );
            }
        }
    }
}

impl Emitter<'_> {
    /// The extensions required since `before` (an index into the module's list) must
    /// be allowed by `-fspv-extension=`; dxc names what needed each one (`user`: a
    /// semantic or built-in) at the semantic.
    pub(crate) fn check_extensions_allowed(&mut self, before: usize, user: &str) {
        let allowed = &self.options.allowed_extensions;
        if allowed.is_empty() {
            return;
        }
        let refused: Vec<String> = self
            .resources
            .extensions
            .iter()
            .skip(before)
            .filter(|ext| !allowed.iter().any(|a| a == *ext || a == "KHR" && ext.starts_with("SPV_KHR_")))
            .cloned()
            .collect();
        for ext in refused {
            let span = self.semantic_span(user).or(self.span);
            self.report_error(
                span,
                format!("SPIR-V extension '{ext}' required for {user} but not permitted to use"),
            );
        }
    }

    /// Where the entry point's parameters or return value name `semantic`.
    fn semantic_span(&self, semantic: &str) -> Option<Span> {
        let entry = self.entry.as_ref()?;
        let DeclKind::Function(f) = &self.ast.decl(entry.function).kind else { return None };
        let matches = |annotations: &[Annotation]| {
            annotations.iter().find_map(|a| match a {
                Annotation::Semantic(name) if self.ast.name(name.name).eq_ignore_ascii_case(semantic) => {
                    Some(name.span)
                }
                _ => None,
            })
        };
        f.params
            .iter()
            .find_map(|&p| match &self.ast.decl(p).kind {
                DeclKind::Var(v) => matches(&v.annotations),
                _ => None,
            })
            .or_else(|| matches(&f.annotations))
    }
}

impl Emitter<'_> {
    /// dxc cannot lay out integer and bool matrices column by column in a buffer:
    /// the members of a cbuffer/tbuffer, checked before their block is made.
    pub(crate) fn check_buffer_matrices(&self, members: &[DeclId]) -> R<()> {
        for &m in members {
            let ty = self.tree.decl(m).map_or(spirvkit_hlsl::sema::types::TypeTable::ERROR, |i| i.ty);
            if self.column_major_int_matrix(ty, 0) {
                return self.rejected_at(self.decl_name_span(m), NON_FLOAT_COLUMN_MAJOR);
            }
        }
        Ok(())
    }

    /// The same for the element struct of a `ConstantBuffer<T>`, `StructuredBuffer<T>`
    /// and the like.
    pub(crate) fn check_element_matrices(&self, d: DeclId, ty: Ty) -> R<()> {
        let mut base = ty;
        while let TypeData::Array { elem, .. } = self.data(base) {
            base = *elem;
        }
        let TypeData::Object { args, .. } = self.data(base) else { return Ok(()) };
        let Some(spirvkit_hlsl::sema::types::ObjectArg::Type(elem)) = args.first() else { return Ok(()) };
        if !matches!(self.data(*elem), TypeData::Struct(_)) {
            return Ok(());
        }
        if self.column_major_int_matrix(*elem, 0) {
            return self.rejected_at(self.decl_name_span(d), NON_FLOAT_COLUMN_MAJOR);
        }
        Ok(())
    }

    /// Whether `ty` is or holds (through structs and arrays) a column-major
    /// non-float matrix.
    fn column_major_int_matrix(&self, ty: Ty, depth: u32) -> bool {
        if depth > 64 {
            return false;
        }
        match self.data(ty) {
            TypeData::Array { elem, .. } => self.column_major_int_matrix(*elem, depth + 1),
            TypeData::Matrix { elem, rows, cols, major } if !elem.is_float() && *rows > 1 && *cols > 1 => {
                match major {
                    Majorness::ColumnMajor => true,
                    Majorness::RowMajor => false,
                    Majorness::Default => !self.options.lower.default_row_major,
                }
            }
            TypeData::Struct(sid) => self.table.struct_info(*sid).is_some_and(|info| {
                info.fields.iter().any(|f| self.column_major_int_matrix(f.ty, depth + 1))
            }),
            _ => false,
        }
    }
}

const NON_FLOAT_COLUMN_MAJOR: &str =
    "externally initialized non-floating-point column-major matrices not supported yet";

impl Emitter<'_> {
    /// `-fvk-bind-register` gives every binding: each resource needs a `register()`
    /// the option maps, `$Globals` needs `-fvk-bind-globals`, and buffers with a
    /// counter are not supported (dxc's rules and words).
    pub(crate) fn check_bind_register(&mut self, decls: &[DeclId], with_counter: &HashSet<DeclId>) -> R<()> {
        let mut has_globals = false;
        for &d in decls {
            let decl = self.ast.decl(d);
            let annotations = match &decl.kind {
                DeclKind::Buffer { annotations, .. } => annotations,
                DeclKind::Var(v) => match self.tree.decl(d).and_then(|i| i.storage) {
                    Some(GlobalStorage::Resource) => &v.annotations,
                    Some(GlobalStorage::Globals) => {
                        has_globals = true;
                        continue;
                    }
                    _ => continue,
                },
                _ => continue,
            };
            let at = match &decl.kind {
                DeclKind::Buffer { name, .. } => name.span,
                _ => self.decl_name_span(d),
            };
            let register = annotations.iter().find_map(|a| match a {
                Annotation::Register { slot, space, profile: None, .. } => Some((*slot, *space)),
                _ => None,
            });
            let Some((slot, space)) = register else {
                return self
                    .rejected_at(at, "-fvk-bind-register requires register annotations on all resources");
            };
            let slot = self.ast.name(slot.name).to_ascii_lowercase();
            let space = match space {
                Some(s) => self
                    .ast
                    .name(s.name)
                    .to_ascii_lowercase()
                    .strip_prefix("space")
                    .and_then(|n| n.parse().ok()),
                None => Some(0),
            };
            let mapped = self
                .options
                .bindings
                .registers
                .iter()
                .any(|(r, sp, _, _)| r.eq_ignore_ascii_case(&slot) && Some(*sp) == space);
            if !mapped {
                return self.rejected_at(at, "missing -fvk-bind-register for resource");
            }
            if with_counter.contains(&d) {
                // The counter variable has its buffer's register and no binding.
                self.report_error(
                    Some(at),
                    "-fvk-bind-register for RW/Append/Consume StructuredBuffer unimplemented",
                );
            }
        }
        if has_globals && self.options.bindings.globals.is_none() {
            return Err(CodegenDiagnostic {
                span: None,
                error: CodegenError::Rejected {
                    message: "-fvk-bind-register requires Globals buffer to be bound with -fvk-bind-globals"
                        .into(),
                },
            });
        }
        Ok(())
    }
}

impl Emitter<'_> {
    /// dxc cannot initialize a parameter of unsized array type (`uint value[]`) from
    /// an argument (resource arrays aside, which legalization replaces).
    pub(crate) fn check_unsized_array_parameter(&self, arg: spirvkit_hlsl::ast::ExprId, param: Ty) -> R<()> {
        let TypeData::Array { elem, len: None } = self.data(param) else { return Ok(()) };
        if self.contains_object(*elem, 0) {
            return Ok(());
        }
        let at = self.ast.expr(arg).span;
        self.rejected_at(
            at,
            format!("initializer for type '{} []' unimplemented", self.clang_type_name(*elem)),
        )
    }

    /// A type as clang spells it in dxc's messages (`unsigned int`, `vector<float, 3>`).
    fn clang_type_name(&self, ty: Ty) -> String {
        use spirvkit_hlsl::sema::types::Scalar;
        let scalar = |s: Scalar| match s {
            Scalar::UInt => "unsigned int".to_string(),
            Scalar::UInt64 => "unsigned long long".to_string(),
            Scalar::Int64 => "long long".to_string(),
            s => s.name().to_string(),
        };
        match self.data(ty) {
            TypeData::Scalar(s) => scalar(*s),
            TypeData::Vector(s, n) => format!("vector<{}, {n}>", scalar(*s)),
            TypeData::Matrix { elem, rows, cols, .. } => format!("matrix<{}, {rows}, {cols}>", scalar(*elem)),
            _ => self.table.display(ty),
        }
    }
}

/// What a global struct holds (dxc rejects some mixes).
#[derive(Default)]
struct ResourceContents {
    resources: bool,
    buffers: bool,
    plain: bool,
}
