//! Declarations and types: variables with their modifiers, semantics, `register` and
//! `packoffset`; functions and operators; structs, enums, typedefs, `using`,
//! namespaces, `cbuffer`/`tbuffer`, templates; attributes.

use super::{Kw, NameKind, Parser, CONTEXTUAL_MODIFIERS};
use crate::ast::{
    Annotation, Attribute, BufferKind, Decl, DeclId, DeclKind, ExprId, FunctionDecl, Ident, Modifiers,
    QualifiedName, StructKeyword, TemplateArg, TemplateParam, TemplateParamKind, TypeId, TypeKind, TypeRef,
    VarDecl,
};
use crate::lexer::{Punct, TokenKind};
use crate::source::Span;

/// Where a declaration appears: decides the `;` message and what is allowed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DeclContext {
    TopLevel,
    Struct,
    Buffer,
    Block,
    ForInit,
    Param,
}

impl Parser<'_> {
    fn add_decl(
        &mut self,
        kind: DeclKind,
        attrs: Vec<Attribute>,
        modifiers: Modifiers,
        span: Span,
    ) -> DeclId {
        self.ast.add_decl(Decl { kind, attrs, modifiers, span })
    }

    // ---- attributes ----

    /// Any number of `[attr(args)]` and `[[ns::attr(args)]]` groups.
    pub(crate) fn parse_attributes(&mut self) -> Vec<Attribute> {
        let mut attrs = Vec::new();
        while self.at(Punct::LBracket) && !self.fatal {
            let open = self.bump();
            let double = self.eat(Punct::LBracket);
            loop {
                if self.at(Punct::RBracket) {
                    break;
                }
                let start = self.peek().origin;
                let first = self.peek();
                if first.kind != TokenKind::Ident {
                    let span = self.error_span();
                    self.error(span, "expected attribute name");
                    self.skip_attribute_rest(double);
                    return attrs;
                }
                self.bump();
                let (namespace, name) =
                    if self.at(Punct::ColonColon) && self.peek_at(1).kind == TokenKind::Ident {
                        self.bump();
                        let n = self.bump();
                        (
                            Some(Ident { name: first.sym, span: first.origin }),
                            Ident { name: n.sym, span: n.origin },
                        )
                    } else {
                        (None, Ident { name: first.sym, span: first.origin })
                    };
                let args = if self.at(Punct::LParen) { self.parse_call_args() } else { Vec::new() };
                let span = self.span_from(start);
                attrs.push(Attribute { namespace, name, args, double_bracket: double, span });
                if !self.eat(Punct::Comma) {
                    break;
                }
            }
            self.expect_closing(Punct::RBracket, open);
            if double {
                self.expect(Punct::RBracket, None);
            }
        }
        attrs
    }

    fn skip_attribute_rest(&mut self, double: bool) {
        while !self.at_eof() && !self.at(Punct::RBracket) {
            self.bump();
        }
        self.eat(Punct::RBracket);
        if double {
            self.eat(Punct::RBracket);
        }
    }

    // ---- modifiers and types ----

    /// The modifier the current token spells, if it acts as one here.
    fn modifier_here(&mut self) -> Option<Modifiers> {
        let tok = self.peek();
        if tok.kind != TokenKind::Ident {
            return None;
        }
        let m = *self.modifiers.get(&tok.sym)?;
        if m.0 & CONTEXTUAL_MODIFIERS.0 != 0 {
            // Only a modifier when a type or another modifier follows.
            let next = self.peek_at(1);
            if next.kind != TokenKind::Ident || self.kw_of(next).is_some_and(|k| k != Kw::Struct) {
                return None;
            }
            if self.lookup(tok.sym) == Some(NameKind::Value) {
                return None;
            }
        }
        Some(m)
    }

    pub(crate) fn parse_modifiers(&mut self) -> Modifiers {
        let mut mods = Modifiers::default();
        while let Some(m) = self.modifier_here() {
            // `unsigned`/`signed` are part of the type name.
            if m == Modifiers::UNSIGNED || m == Modifiers::SIGNED {
                break;
            }
            self.bump();
            mods.insert(m);
        }
        mods
    }

    /// The current token starts a type name (built-in, declared or qualified).
    pub(crate) fn at_type_name(&mut self) -> bool {
        let tok = self.peek();
        if tok.kind != TokenKind::Ident {
            return tok.is_punct(Punct::ColonColon) && self.qualified_type_ahead();
        }
        match self.kw_of(tok) {
            Some(Kw::Struct | Kw::Class | Kw::Interface | Kw::Typename | Kw::Enum) => return true,
            Some(_) => return false,
            None => {}
        }
        if matches!(self.modifiers.get(&tok.sym), Some(&m) if m == Modifiers::UNSIGNED || m == Modifiers::SIGNED)
        {
            return true;
        }
        if self.peek_at(1).is_punct(Punct::ColonColon) {
            return self.qualified_type_ahead();
        }
        matches!(self.lookup(tok.sym), Some(NameKind::Type | NameKind::TypeTemplate))
    }

    /// `a::b::C` ahead names a type (its last segment does, or it is in `vk::`).
    fn qualified_type_ahead(&mut self) -> bool {
        let mut i = usize::from(self.peek().is_punct(Punct::ColonColon));
        let last = loop {
            let tok = self.peek_at(i);
            if tok.kind != TokenKind::Ident {
                return false;
            }
            if self.peek_at(i + 1).is_punct(Punct::ColonColon) {
                i += 2;
                continue;
            }
            break tok.sym;
        };
        matches!(self.lookup_qualified(last, true), Some(NameKind::Type | NameKind::TypeTemplate))
    }

    /// A type: modifiers inside it, a (qualified) name with template arguments, an
    /// inline struct, `unsigned int`. `None` (after reporting) when there is none.
    pub(crate) fn parse_type(&mut self) -> Option<TypeId> {
        let start = self.peek().origin;
        if !self.enter() {
            return None;
        }
        let result = self.parse_type_inner(start);
        self.leave();
        result
    }

    fn parse_type_inner(&mut self, start: Span) -> Option<TypeId> {
        let mut modifiers = self.parse_modifiers();
        let tok = self.peek();
        match self.kw_of(tok) {
            Some(Kw::Struct | Kw::Class | Kw::Interface) => {
                let decl = self.parse_struct(Vec::new(), Modifiers::default())?;
                let kind = match &self.ast.decl(decl).kind {
                    DeclKind::Struct { name: Some(name), members: None, .. } => {
                        // `struct S x;` names the type.
                        TypeKind::Named {
                            name: QualifiedName { global: false, segments: vec![*name] },
                            args: None,
                        }
                    }
                    _ => TypeKind::Struct(decl),
                };
                return Some(self.ast.add_type(TypeRef { kind, modifiers, span: self.span_from(start) }));
            }
            Some(Kw::Enum) => {
                self.bump();
                let name = self.parse_qualified_name()?;
                let kind = TypeKind::Named { name, args: None };
                return Some(self.ast.add_type(TypeRef { kind, modifiers, span: self.span_from(start) }));
            }
            Some(Kw::Typename) => {
                self.bump();
                let name = self.parse_qualified_name()?;
                let args =
                    if self.at(Punct::Lt) { self.speculate(|p| p.parse_template_args()) } else { None };
                let has_args = args.is_some();
                let kind = TypeKind::Named { name, args };
                let ty = self.ast.add_type(TypeRef { kind, modifiers, span: self.span_from(start) });
                return Some(if has_args { self.parse_member_types(ty, start, true) } else { ty });
            }
            _ => {}
        }
        // `unsigned int`, `unsigned`, `signed int`.
        if let Some(&m) = self.modifiers.get(&tok.sym).filter(|_| tok.kind == TokenKind::Ident) {
            if m == Modifiers::UNSIGNED || m == Modifiers::SIGNED {
                self.bump();
                modifiers.insert(m);
                let next = self.peek();
                let base = if next.kind == TokenKind::Ident
                    && matches!(self.text(next), "int" | "short" | "long" | "char" | "min16int" | "min12int")
                {
                    self.bump();
                    Ident { name: next.sym, span: next.origin }
                } else {
                    Ident { name: self.ast.interner.intern("int"), span: tok.origin }
                };
                let kind = TypeKind::Named {
                    name: QualifiedName { global: false, segments: vec![base] },
                    args: None,
                };
                return Some(self.ast.add_type(TypeRef { kind, modifiers, span: self.span_from(start) }));
            }
        }
        if !self.at_type_name() {
            let span = if self.is_name(tok) { tok.origin } else { self.error_span() };
            if self.is_name(tok) {
                let name = self.text(tok).to_string();
                self.error(span, format!("unknown type name '{name}'"));
            } else {
                self.error(span, "expected a type");
            }
            return None;
        }
        let name = self.parse_qualified_name()?;
        let qualified = name.segments.len() > 1;
        let kind = name.last().and_then(|l| self.lookup_qualified(l.name, qualified));
        let args = if self.at(Punct::Lt) && kind == Some(NameKind::TypeTemplate) {
            Some(self.parse_template_args()?)
        } else {
            None
        };
        if args.is_some() && self.at(Punct::ColonColon) && self.member_type_ahead(false) {
            // `Traits<int>::type`: members of an instantiation.
            let kind = TypeKind::Named { name, args };
            let owner = self.ast.add_type(TypeRef {
                kind,
                modifiers: Modifiers::default(),
                span: self.span_from(start),
            });
            let ty = self.parse_member_types(owner, start, false);
            let mut member = self.ast.ty(ty).clone();
            member.modifiers.insert(modifiers);
            member.modifiers.insert(self.parse_modifiers());
            return Some(self.ast.add_type(member));
        }
        // Modifiers may also follow the type (`float const x`).
        modifiers.insert(self.parse_modifiers());
        let kind = TypeKind::Named { name, args };
        Some(self.ast.add_type(TypeRef { kind, modifiers, span: self.span_from(start) }))
    }

    /// Whether `::name` follows and names a type: after `typename` any name does;
    /// otherwise one the name table knows as a (member) type or template
    /// (`Arr<int, 2>::size` stays an expression).
    fn member_type_ahead(&mut self, typename: bool) -> bool {
        let name = self.peek_at(1);
        self.at(Punct::ColonColon)
            && self.is_name(name)
            && (typename
                || matches!(
                    self.lookup_qualified(name.sym, true),
                    Some(NameKind::Type | NameKind::TypeTemplate)
                ))
    }

    /// `::name[<args>]` after a type with template arguments, repeated.
    fn parse_member_types(&mut self, mut owner: TypeId, start: Span, typename: bool) -> TypeId {
        // Bounded, so that walks over the chain (sema, the dumper) stay shallow.
        const MAX_MEMBER_DEPTH: u32 = 64;
        let mut depth = 0;
        while self.member_type_ahead(typename) && !self.fatal {
            depth += 1;
            if depth > MAX_MEMBER_DEPTH {
                let span = self.peek_at(1).origin;
                self.error(span, "nested name specifier is too deep");
                break;
            }
            self.bump();
            let tok = self.bump();
            let name = Ident { name: tok.sym, span: tok.origin };
            let args = if self.at(Punct::Lt) { self.speculate(|p| p.parse_template_args()) } else { None };
            let kind = TypeKind::Member { owner, name, args };
            owner = self.ast.add_type(TypeRef {
                kind,
                modifiers: Modifiers::default(),
                span: self.span_from(start),
            });
        }
        owner
    }

    /// `T[N]` after a type in casts and template arguments.
    pub(crate) fn parse_abstract_array_suffix(&mut self, mut ty: TypeId) -> TypeId {
        while self.at(Punct::LBracket) && !self.fatal {
            let start = self.ast.ty(ty).span;
            let open = self.bump();
            let size = if self.at(Punct::RBracket) { None } else { Some(self.parse_expr()) };
            self.expect_closing(Punct::RBracket, open);
            let kind = TypeKind::Array { element: ty, size };
            ty = self.ast.add_type(TypeRef {
                kind,
                modifiers: Modifiers::default(),
                span: self.span_from(start),
            });
        }
        ty
    }

    /// `< arg, ... >`, the current token being `<`.
    pub(crate) fn parse_template_args(&mut self) -> Option<Vec<TemplateArg>> {
        let open = self.bump();
        if !self.enter() {
            return None;
        }
        let saved = std::mem::replace(&mut self.no_greater, true);
        let mut args = Vec::new();
        let mut ok = true;
        if !matches!(self.peek().kind, TokenKind::Punct(Punct::Gt | Punct::Shr | Punct::Ge | Punct::ShrEq)) {
            loop {
                let arg = if let Some(ty) = self.speculate(|p| {
                    let ty = p.parse_type()?;
                    let ty = p.parse_abstract_array_suffix(ty);
                    let next = p.peek();
                    let ends = matches!(
                        next.kind,
                        TokenKind::Punct(Punct::Comma | Punct::Gt | Punct::Shr | Punct::Ge | Punct::ShrEq)
                    );
                    ends.then_some(ty)
                }) {
                    TemplateArg::Type(ty)
                } else {
                    TemplateArg::Expr(self.parse_conditional_no_comma())
                };
                args.push(arg);
                if !self.eat(Punct::Comma) || self.fatal {
                    break;
                }
            }
        }
        self.no_greater = saved;
        if !self.eat_closing_angle() {
            let span = self.error_span();
            let note = "to match this '<'";
            self.report(
                crate::diag::Diagnostic::error(Some(span), "expected '>'").with_note(Some(open.origin), note),
            );
            ok = false;
        }
        self.leave();
        ok.then_some(args)
    }

    fn parse_conditional_no_comma(&mut self) -> ExprId {
        self.parse_assign()
    }

    // ---- declarations ----

    /// One declaration (which may declare several variables). Returns what it declared.
    pub(crate) fn parse_declaration(&mut self, ctx: DeclContext) -> Vec<DeclId> {
        let start = self.peek().origin;
        if !self.enter() {
            return Vec::new();
        }
        let result = self.parse_declaration_inner(ctx, start);
        self.leave();
        result
    }

    fn parse_declaration_inner(&mut self, ctx: DeclContext, start: Span) -> Vec<DeclId> {
        let attrs = self.parse_attributes();
        let tok = self.peek();
        if tok.is_punct(Punct::Semi) {
            self.bump();
            return vec![self.add_decl(DeclKind::Empty, attrs, Modifiers::default(), tok.origin)];
        }
        match self.kw_of(tok) {
            Some(Kw::Typedef) => return self.parse_typedef(attrs, start),
            Some(Kw::Using) => return self.parse_using(attrs, start).into_iter().collect(),
            Some(Kw::Namespace) => return self.parse_namespace(attrs, start).into_iter().collect(),
            Some(Kw::Template) => return self.parse_template(attrs, start, ctx),
            Some(Kw::CBuffer | Kw::TBuffer) => return self.parse_buffer(attrs, start).into_iter().collect(),
            Some(Kw::StaticAssert) => return self.parse_static_assert(attrs, start).into_iter().collect(),
            Some(Kw::Enum) => {
                if let Some(decl) = self.parse_enum(attrs.clone(), start) {
                    if self.eat(Punct::Semi) {
                        return vec![decl];
                    }
                    let DeclKind::Enum { name: Some(name), .. } = self.ast.decl(decl).kind.clone() else {
                        self.expect(Punct::Semi, Some("expected ';' after enum"));
                        return vec![decl];
                    };
                    let kind = TypeKind::Named {
                        name: QualifiedName { global: false, segments: vec![name] },
                        args: None,
                    };
                    let ty =
                        self.ast.add_type(TypeRef { kind, modifiers: Modifiers::default(), span: name.span });
                    let mut out = vec![decl];
                    out.extend(self.parse_declarators(ctx, attrs, Modifiers::default(), ty, start));
                    return out;
                }
                self.skip_to_statement_end();
                return Vec::new();
            }
            _ => {}
        }
        if ctx == DeclContext::TopLevel && self.is_name(tok) && self.effects_keyword(tok) {
            return self.skip_effect_block(tok);
        }
        let modifiers = self.parse_modifiers();
        let type_start = self.peek();
        let is_struct = matches!(self.kw_of(type_start), Some(Kw::Struct | Kw::Class | Kw::Interface));
        // An unknown name followed by a declarator: report it once and go on.
        let ty = if self.is_name(type_start)
            && !self.at_type_name()
            && (self.is_name(self.peek_at(1)) || self.peek_at(1).is_punct(Punct::Lt))
        {
            let name = self.text(type_start).to_string();
            self.error(type_start.origin, format!("unknown type name '{name}'"));
            self.bump();
            let id = Ident { name: type_start.sym, span: type_start.origin };
            if self.at(Punct::Lt) {
                let _ = self.speculate(|p| p.parse_template_args());
            }
            let kind =
                TypeKind::Named { name: QualifiedName { global: false, segments: vec![id] }, args: None };
            self.ast.add_type(TypeRef { kind, modifiers: Modifiers::default(), span: type_start.origin })
        } else {
            match self.parse_type() {
                Some(ty) => ty,
                None => {
                    self.skip_to_statement_end();
                    return Vec::new();
                }
            }
        };
        let mut out = Vec::new();
        if is_struct {
            if let TypeKind::Struct(decl) = self.ast.ty(ty).kind {
                if let Some(d) = self.ast.decls.get_mut(decl.index()) {
                    d.attrs.extend(attrs.iter().cloned());
                }
                out.push(decl);
            }
            if self.eat(Punct::Semi) {
                if out.is_empty() {
                    // `struct S;` forward declaration: keep the struct decl itself.
                    if let TypeKind::Named { name, .. } = &self.ast.ty(ty).kind {
                        if let Some(n) = name.last() {
                            let kind = DeclKind::Struct {
                                keyword: StructKeyword::Struct,
                                name: Some(n),
                                template_args: None,
                                bases: Vec::new(),
                                members: None,
                            };
                            out.push(self.add_decl(kind, attrs, modifiers, self.span_from(start)));
                        }
                    }
                }
                return out;
            }
        }
        if self.at(Punct::Semi) && !is_struct {
            // `int;` declares nothing, but is harmless.
            self.bump();
            return out;
        }
        out.extend(self.parse_declarators(ctx, attrs, modifiers, ty, start));
        out
    }

    /// After the type: a function, or variables separated by commas, then `;`.
    fn parse_declarators(
        &mut self,
        ctx: DeclContext,
        attrs: Vec<Attribute>,
        modifiers: Modifiers,
        ty: TypeId,
        start: Span,
    ) -> Vec<DeclId> {
        let mut out = Vec::new();
        loop {
            let decl_start = if out.is_empty() { start } else { self.peek().origin };
            let Some(name) = self.parse_declarator_name() else {
                let span = self.error_span();
                self.error(span, "expected unqualified-id");
                self.skip_to_statement_end();
                return out;
            };
            if self.at(Punct::LParen) && ctx != DeclContext::ForInit {
                let f = self.parse_function_rest(attrs.clone(), modifiers, ty, name, decl_start);
                out.push(f);
                return out;
            }
            let template_args = if self.at(Punct::Lt) && name.segments.len() == 1 {
                self.speculate(|p| p.parse_template_args())
            } else {
                None
            };
            let _ = template_args;
            let Some(ident) = name.last() else { return out };
            let mut var = self.parse_var_rest(ctx, ty, Some(ident));
            var.qualifier = name.segments[..name.segments.len() - 1].to_vec();
            // A variable shadows a type of the same name.
            if self.lookup(ident.name).is_some() {
                self.declare(ident.name, NameKind::Value);
            }
            out.push(self.add_decl(DeclKind::Var(var), attrs.clone(), modifiers, self.span_from(decl_start)));
            if self.eat(Punct::Comma) && !self.fatal {
                continue;
            }
            break;
        }
        if ctx == DeclContext::ForInit {
            return out;
        }
        let message = match ctx {
            DeclContext::TopLevel => "expected ';' after top level declarator",
            DeclContext::Struct => "expected ';' at end of declaration list",
            _ => "expected ';' at end of declaration",
        };
        if !self.eat(Punct::Semi) {
            let span = self.error_span();
            self.error(span, message);
            self.skip_to_statement_end();
        }
        out
    }

    /// A declarator name: `x`, `S::f`, `operator+`, `operator[]`.
    fn parse_declarator_name(&mut self) -> Option<QualifiedName> {
        let tok = self.peek();
        if self.kw_of(tok) == Some(Kw::Operator) {
            return self.parse_operator_name(QualifiedName { global: false, segments: Vec::new() });
        }
        if !self.is_name(tok) && !tok.is_punct(Punct::ColonColon) {
            return None;
        }
        let global = self.eat(Punct::ColonColon);
        let mut segments = Vec::new();
        loop {
            let t = self.peek();
            if self.kw_of(t) == Some(Kw::Operator) {
                return self.parse_operator_name(QualifiedName { global, segments });
            }
            if !self.is_name(t) {
                break;
            }
            self.bump();
            segments.push(Ident { name: t.sym, span: t.origin });
            // `MyClass<T>::member`: template arguments of an enclosing class.
            if self.at(Punct::Lt) && self.lookup(t.sym) == Some(NameKind::TypeTemplate) {
                let _ = self.speculate(|p| {
                    p.parse_template_args()?;
                    p.at(Punct::ColonColon).then_some(())
                });
            }
            if self.at(Punct::ColonColon) {
                self.bump();
                continue;
            }
            break;
        }
        (!segments.is_empty()).then_some(QualifiedName { global, segments })
    }

    fn parse_operator_name(&mut self, mut prefix: QualifiedName) -> Option<QualifiedName> {
        let kw = self.bump();
        let first = self.peek();
        let spelling = match first.kind {
            TokenKind::Punct(Punct::LParen) => {
                self.bump();
                self.expect(Punct::RParen, None);
                "()".to_string()
            }
            TokenKind::Punct(Punct::LBracket) => {
                self.bump();
                self.expect(Punct::RBracket, None);
                "[]".to_string()
            }
            TokenKind::Punct(p) => {
                self.bump();
                p.spelling().to_string()
            }
            TokenKind::Ident => {
                // A conversion operator: `operator float()`.
                let ty = self.parse_type()?;
                format!(" {}", self.ast.type_spelling(ty))
            }
            _ => {
                self.error(first.origin, "expected a type");
                return None;
            }
        };
        let name = self.ast.interner.intern(&format!("operator{spelling}"));
        prefix.segments.push(Ident { name, span: self.span_from(kw.origin) });
        Some(prefix)
    }

    /// Array dimensions, bit-field width or annotations, and the initializer.
    fn parse_var_rest(&mut self, ctx: DeclContext, ty: TypeId, name: Option<Ident>) -> VarDecl {
        let mut array_dims = Vec::new();
        while self.at(Punct::LBracket) && !self.fatal {
            let open = self.bump();
            let size = if self.at(Punct::RBracket) { None } else { Some(self.parse_expr()) };
            self.expect_closing(Punct::RBracket, open);
            array_dims.push(size);
        }
        let mut bit_width = None;
        if ctx == DeclContext::Struct
            && self.at(Punct::Colon)
            && !matches!(self.peek_at(1).kind, TokenKind::Ident)
        {
            self.bump();
            bit_width = Some(self.parse_assign());
        }
        let annotations = self.parse_annotations();
        let mut has_effect_annotations = false;
        if self.at(Punct::Lt) {
            has_effect_annotations = self.skip_effect_annotations();
        }
        let mut init = None;
        if self.eat(Punct::Eq) {
            init = Some(if self.at(Punct::LBrace) { self.parse_init_list() } else { self.parse_assign() });
        } else if self.at(Punct::LBrace) && ctx != DeclContext::Param {
            // Effect-style `sampler s { ... }` state blocks (and C++ brace init).
            init = Some(self.parse_init_list_or_state_block());
        }
        VarDecl {
            ty,
            name,
            qualifier: Vec::new(),
            array_dims,
            annotations,
            init,
            bit_width,
            has_effect_annotations,
        }
    }

    fn parse_init_list_or_state_block(&mut self) -> ExprId {
        if let Some(e) = self.speculate(|p| Some(p.parse_init_list())) {
            return e;
        }
        let open = self.peek();
        self.skip_balanced();
        self.error_expr(self.span_from(open.origin))
    }

    /// Skips a balanced `{...}`, `(...)` or `[...]` group starting at the current token.
    pub(crate) fn skip_balanced(&mut self) {
        let mut depth = 0usize;
        loop {
            let tok = self.bump();
            match tok.kind {
                TokenKind::Eof => return,
                TokenKind::Punct(Punct::LBrace | Punct::LParen | Punct::LBracket) => depth += 1,
                TokenKind::Punct(Punct::RBrace | Punct::RParen | Punct::RBracket) => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return;
                    }
                }
                _ => {}
            }
            if depth == 0 {
                return;
            }
        }
    }

    /// `< type name = value; ... >` annotations of the effect framework: skipped.
    fn skip_effect_annotations(&mut self) -> bool {
        let mut depth = 0usize;
        loop {
            let tok = self.peek();
            match tok.kind {
                TokenKind::Eof => return true,
                TokenKind::Punct(Punct::Lt) => depth += 1,
                TokenKind::Punct(Punct::Gt) => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        self.bump();
                        return true;
                    }
                }
                TokenKind::Punct(Punct::Shr) if depth <= 2 => {
                    self.bump();
                    return true;
                }
                _ => {}
            }
            self.bump();
        }
    }

    /// `: SEMANTIC`, `: register(...)`, `: packoffset(...)`, any number of them.
    pub(crate) fn parse_annotations(&mut self) -> Vec<Annotation> {
        let mut out = Vec::new();
        while self.at(Punct::Colon) && self.peek_at(1).kind == TokenKind::Ident && !self.fatal {
            self.bump();
            let tok = self.bump();
            let word = self.text(tok).to_string();
            let is_call = self.at(Punct::LParen);
            if word == "register" && is_call {
                if let Some(a) = self.parse_register(tok.origin) {
                    out.push(a);
                }
            } else if word == "packoffset" && is_call {
                if let Some(a) = self.parse_packoffset(tok.origin) {
                    out.push(a);
                }
            } else if (word == "read" || word == "write") && is_call {
                if let Some(a) = self.parse_payload_access(word == "write", tok.origin) {
                    out.push(a);
                }
            } else {
                out.push(Annotation::Semantic(Ident { name: tok.sym, span: tok.origin }));
            }
        }
        out
    }

    fn parse_register(&mut self, start: Span) -> Option<Annotation> {
        let open = self.bump();
        let mut words: Vec<(Ident, Option<ExprId>)> = Vec::new();
        loop {
            let tok = self.peek();
            if tok.kind != TokenKind::Ident {
                let span = self.error_span();
                self.error(span, "expected identifier");
                self.skip_to_closing_paren();
                return None;
            }
            self.bump();
            let sub = if self.at(Punct::LBracket) {
                let o = self.bump();
                let e = self.parse_expr();
                self.expect_closing(Punct::RBracket, o);
                Some(e)
            } else {
                None
            };
            words.push((Ident { name: tok.sym, span: tok.origin }, sub));
            if !self.eat(Punct::Comma) {
                break;
            }
        }
        self.expect_closing(Punct::RParen, open);
        let span = self.span_from(start);
        let is_space = |p: &Self, i: &Ident| p.ast.name(i.name).starts_with("space");
        let (profile, slot, space) = match words.as_slice() {
            [(slot, sub)] if !is_space(self, slot) => (None, Some((*slot, *sub)), None),
            [(space, _)] => (None, None, Some(*space)),
            [(slot, sub), (space, _)] if is_space(self, space) => (None, Some((*slot, *sub)), Some(*space)),
            [(profile, _), (slot, sub)] => (Some(*profile), Some((*slot, *sub)), None),
            [(profile, _), (slot, sub), (space, _)] => (Some(*profile), Some((*slot, *sub)), Some(*space)),
            _ => {
                self.error(span, "invalid register specification");
                return None;
            }
        };
        let (slot, subcomponent) = match slot {
            Some(s) => s,
            // `register(space1)`: no slot, only a space.
            None => (Ident { name: self.ast.interner.intern(""), span }, None),
        };
        Some(Annotation::Register { profile, slot, subcomponent, space, span })
    }

    /// `read(stage, ...)` / `write(stage, ...)` after `:`; the list may be empty.
    fn parse_payload_access(&mut self, write: bool, start: Span) -> Option<Annotation> {
        let open = self.bump();
        let mut stages = Vec::new();
        if !self.at(Punct::RParen) {
            loop {
                let tok = self.peek();
                if tok.kind != TokenKind::Ident {
                    let span = self.error_span();
                    self.error(span, "expected identifier");
                    self.skip_to_closing_paren();
                    return None;
                }
                self.bump();
                stages.push(Ident { name: tok.sym, span: tok.origin });
                if !self.eat(Punct::Comma) {
                    break;
                }
            }
        }
        self.expect_closing(Punct::RParen, open);
        Some(Annotation::PayloadAccess { write, stages, span: self.span_from(start) })
    }

    fn parse_packoffset(&mut self, start: Span) -> Option<Annotation> {
        let open = self.bump();
        let reg = self.peek();
        if reg.kind != TokenKind::Ident {
            let span = self.error_span();
            self.error(span, "expected identifier");
            self.skip_to_closing_paren();
            return None;
        }
        self.bump();
        let component = if self.eat(Punct::Dot) {
            let c = self.peek();
            if c.kind == TokenKind::Ident {
                self.bump();
                Some(Ident { name: c.sym, span: c.origin })
            } else {
                None
            }
        } else {
            None
        };
        self.expect_closing(Punct::RParen, open);
        let register = Ident { name: reg.sym, span: reg.origin };
        Some(Annotation::PackOffset { register, component, span: self.span_from(start) })
    }

    fn skip_to_closing_paren(&mut self) {
        let mut depth = 0usize;
        loop {
            let tok = self.peek();
            match tok.kind {
                TokenKind::Eof | TokenKind::Punct(Punct::Semi) => return,
                TokenKind::Punct(Punct::LParen) => depth += 1,
                TokenKind::Punct(Punct::RParen) => {
                    if depth == 0 {
                        self.bump();
                        return;
                    }
                    depth -= 1;
                }
                _ => {}
            }
            self.bump();
        }
    }

    fn parse_function_rest(
        &mut self,
        attrs: Vec<Attribute>,
        modifiers: Modifiers,
        ret: TypeId,
        name: QualifiedName,
        start: Span,
    ) -> DeclId {
        if let Some(last) = name.last() {
            if self.lookup(last.name).is_none() {
                self.declare(last.name, NameKind::Value);
            }
        }
        let open = self.bump();
        self.push_scope();
        let mut params = Vec::new();
        let void_only = self.peek().kind == TokenKind::Ident
            && self.text(self.peek()) == "void"
            && self.peek_at(1).is_punct(Punct::RParen);
        if void_only {
            self.bump();
        }
        if !self.at(Punct::RParen) {
            loop {
                match self.parse_param() {
                    Some(p) => params.push(p),
                    None => {
                        self.skip_param_rest();
                    }
                }
                if !self.eat(Punct::Comma) || self.fatal {
                    break;
                }
            }
        }
        self.expect_closing(Punct::RParen, open);
        // `int f()[2]`: a declarator returning an array.
        let ret = self.parse_abstract_array_suffix(ret);
        let is_const = self.text(self.peek()) == "const" && {
            self.bump();
            true
        };
        let annotations = self.parse_annotations();
        let body = if self.at(Punct::LBrace) {
            Some(self.parse_block())
        } else {
            if !self.eat(Punct::Semi) {
                let span = self.error_span();
                self.error(span, "expected function body after function declarator");
                self.skip_to_statement_end();
            }
            None
        };
        self.pop_scope();
        let kind = DeclKind::Function(FunctionDecl {
            ret,
            name,
            params,
            annotations,
            body,
            is_const,
            template_args: None,
        });
        self.add_decl(kind, attrs, modifiers, self.span_from(start))
    }

    fn skip_param_rest(&mut self) {
        let mut depth = 0usize;
        loop {
            let tok = self.peek();
            match tok.kind {
                TokenKind::Eof | TokenKind::Punct(Punct::Semi | Punct::LBrace) => return,
                TokenKind::Punct(Punct::LParen | Punct::LBracket) => depth += 1,
                TokenKind::Punct(Punct::RParen | Punct::RBracket) if depth == 0 => return,
                TokenKind::Punct(Punct::RParen | Punct::RBracket) => depth -= 1,
                TokenKind::Punct(Punct::Comma) if depth == 0 => return,
                _ => {}
            }
            self.bump();
        }
    }

    fn parse_param(&mut self) -> Option<DeclId> {
        let start = self.peek().origin;
        let attrs = self.parse_attributes();
        let modifiers = self.parse_modifiers();
        let ty = self.parse_type()?;
        let name_tok = self.peek();
        let name = if self.is_name(name_tok) {
            self.bump();
            Some(Ident { name: name_tok.sym, span: name_tok.origin })
        } else {
            None
        };
        let mut var = self.parse_var_rest(DeclContext::Param, ty, name);
        if var.init.is_none() && self.eat(Punct::Eq) {
            var.init = Some(self.parse_assign());
        }
        if let Some(n) = name {
            if self.lookup(n.name).is_some() {
                self.declare(n.name, NameKind::Value);
            }
        }
        Some(self.add_decl(DeclKind::Var(var), attrs, modifiers, self.span_from(start)))
    }

    /// `struct|class|interface [Name [<args>]] [: Base, ...] [{ members }]`.
    pub(crate) fn parse_struct(&mut self, attrs: Vec<Attribute>, modifiers: Modifiers) -> Option<DeclId> {
        let kw_tok = self.bump();
        let keyword = match self.kw_of(kw_tok) {
            Some(Kw::Class) => StructKeyword::Class,
            Some(Kw::Interface) => StructKeyword::Interface,
            _ => StructKeyword::Struct,
        };
        let start = kw_tok.origin;
        let _ = self.parse_attributes();
        let name_tok = self.peek();
        let name = if self.is_name(name_tok) {
            self.bump();
            let ident = Ident { name: name_tok.sym, span: name_tok.origin };
            // Declared before the body so members can refer to it.
            if self.lookup(ident.name) != Some(NameKind::TypeTemplate) {
                self.declare(ident.name, NameKind::Type);
            }
            Some(ident)
        } else {
            None
        };
        let template_args =
            if name.is_some() && self.at(Punct::Lt) { self.parse_template_args() } else { None };
        let mut bases = Vec::new();
        if self.at(Punct::Colon) && !self.peek_at(1).is_punct(Punct::Colon) {
            self.bump();
            loop {
                let _ = self.parse_modifiers();
                let t = self.peek();
                if self.is_name(t) && ["public", "private", "protected"].contains(&self.text(t)) {
                    self.bump();
                }
                match self.parse_type() {
                    Some(ty) => bases.push(ty),
                    None => break,
                }
                if !self.eat(Punct::Comma) {
                    break;
                }
            }
        }
        let members = if self.at(Punct::LBrace) {
            let open = self.bump();
            self.push_scope();
            let mut members = Vec::new();
            while !self.at(Punct::RBrace) && !self.at_eof() {
                let before = self.pos;
                let t = self.peek();
                // Access specifiers (`public:`) are accepted and ignored.
                if self.is_name(t)
                    && ["public", "private", "protected"].contains(&self.text(t))
                    && self.peek_at(1).is_punct(Punct::Colon)
                {
                    self.bump();
                    self.bump();
                    continue;
                }
                members.extend(self.parse_declaration(DeclContext::Struct));
                if self.pos == before {
                    self.bump();
                }
            }
            self.pop_member_scope();
            self.expect_closing(Punct::RBrace, open);
            Some(members)
        } else {
            None
        };
        if name.is_none() && members.is_none() {
            let span = self.error_span();
            self.error(span, "declaration of anonymous struct must be a definition");
            return None;
        }
        let kind = DeclKind::Struct { keyword, name, template_args, bases, members };
        Some(self.add_decl(kind, attrs, modifiers, self.span_from(start)))
    }

    fn parse_enum(&mut self, attrs: Vec<Attribute>, start: Span) -> Option<DeclId> {
        self.bump();
        let scoped = self.eat_kw(Kw::Class) || self.eat_kw(Kw::Struct);
        let name_tok = self.peek();
        let name = if self.is_name(name_tok) {
            self.bump();
            let ident = Ident { name: name_tok.sym, span: name_tok.origin };
            self.declare(ident.name, NameKind::Type);
            Some(ident)
        } else {
            None
        };
        let underlying = if self.eat(Punct::Colon) { self.parse_type() } else { None };
        let mut constants = Vec::new();
        if self.at(Punct::LBrace) {
            let open = self.bump();
            while !self.at(Punct::RBrace) && !self.at_eof() {
                let t = self.peek();
                if !self.is_name(t) {
                    let span = self.error_span();
                    self.error(span, "expected identifier");
                    self.skip_balanced_until_rbrace();
                    break;
                }
                self.bump();
                let ident = Ident { name: t.sym, span: t.origin };
                let value = if self.eat(Punct::Eq) { Some(self.parse_assign()) } else { None };
                if !scoped {
                    self.declare(ident.name, NameKind::Value);
                }
                let kind = DeclKind::EnumConstant { name: ident, value };
                constants.push(self.add_decl(
                    kind,
                    Vec::new(),
                    Modifiers::default(),
                    self.span_from(t.origin),
                ));
                if !self.eat(Punct::Comma) {
                    break;
                }
            }
            self.expect_closing(Punct::RBrace, open);
        }
        let kind = DeclKind::Enum { name, scoped, underlying, constants };
        Some(self.add_decl(kind, attrs, Modifiers::default(), self.span_from(start)))
    }

    fn skip_balanced_until_rbrace(&mut self) {
        while !self.at(Punct::RBrace) && !self.at_eof() {
            if matches!(self.peek().kind, TokenKind::Punct(Punct::LParen | Punct::LBrace | Punct::LBracket)) {
                self.skip_balanced();
            } else {
                self.bump();
            }
        }
    }

    fn parse_typedef(&mut self, attrs: Vec<Attribute>, start: Span) -> Vec<DeclId> {
        self.bump();
        let modifiers = self.parse_modifiers();
        let Some(ty) = self.parse_type() else {
            self.skip_to_statement_end();
            return Vec::new();
        };
        let mut out = Vec::new();
        if let TypeKind::Struct(decl) = self.ast.ty(ty).kind {
            out.push(decl);
        }
        loop {
            let t = self.peek();
            if !(self.is_name(t) || t.kind == TokenKind::Ident && self.lookup(t.sym).is_some()) {
                let span = self.error_span();
                self.error(span, "expected unqualified-id");
                self.skip_to_statement_end();
                return out;
            }
            self.bump();
            let name = Ident { name: t.sym, span: t.origin };
            let mut array_dims = Vec::new();
            while self.at(Punct::LBracket) {
                let open = self.bump();
                array_dims.push(if self.at(Punct::RBracket) { None } else { Some(self.parse_expr()) });
                self.expect_closing(Punct::RBracket, open);
            }
            self.declare(name.name, NameKind::Type);
            let kind = DeclKind::Typedef { ty, name, array_dims };
            out.push(self.add_decl(kind, attrs.clone(), modifiers, self.span_from(start)));
            if !self.eat(Punct::Comma) {
                break;
            }
        }
        if !self.eat(Punct::Semi) {
            let span = self.error_span();
            self.error(span, "expected ';' after typedef");
            self.skip_to_statement_end();
        }
        out
    }

    fn parse_using(&mut self, mut attrs: Vec<Attribute>, start: Span) -> Option<DeclId> {
        self.bump();
        let kind = if self.eat_kw(Kw::Namespace) {
            let name = self.parse_qualified_name();
            DeclKind::UsingNamespace(name.unwrap_or(QualifiedName { global: false, segments: Vec::new() }))
        } else if self.is_name(self.peek())
            && (self.peek_at(1).is_punct(Punct::Eq) || self.peek_at(1).is_punct(Punct::LBracket))
        {
            let t = self.bump();
            let alias_attrs = self.parse_attributes();
            if !self.expect(Punct::Eq, None) {
                self.skip_to_statement_end();
                return None;
            }
            attrs.extend(alias_attrs);
            let name = Ident { name: t.sym, span: t.origin };
            let ty = self.parse_type()?;
            let ty = self.parse_abstract_array_suffix(ty);
            self.declare(name.name, NameKind::Type);
            DeclKind::TypeAlias { name, ty }
        } else {
            let name = self.parse_qualified_name();
            if let Some(last) = name.as_ref().and_then(|n| n.last()) {
                if let Some(kind) = self.lookup(last.name) {
                    self.declare(last.name, kind);
                }
            }
            DeclKind::UsingDecl(name.unwrap_or(QualifiedName { global: false, segments: Vec::new() }))
        };
        if !self.eat(Punct::Semi) {
            let span = self.error_span();
            self.error(span, "expected ';' after using declaration");
            self.skip_to_statement_end();
        }
        Some(self.add_decl(kind, attrs, Modifiers::default(), self.span_from(start)))
    }

    fn parse_namespace(&mut self, attrs: Vec<Attribute>, start: Span) -> Option<DeclId> {
        self.bump();
        let t = self.peek();
        let name = if self.is_name(t) {
            self.bump();
            self.declare(t.sym, NameKind::Namespace);
            Some(Ident { name: t.sym, span: t.origin })
        } else {
            None
        };
        if !self.at(Punct::LBrace) {
            let span = self.error_span();
            self.error(span, "expected '{'");
            self.skip_to_statement_end();
            return None;
        }
        let open = self.bump();
        let decls = self.parse_decls_until_rbrace(DeclContext::TopLevel);
        self.expect_closing(Punct::RBrace, open);
        Some(self.add_decl(
            DeclKind::Namespace { name, decls },
            attrs,
            Modifiers::default(),
            self.span_from(start),
        ))
    }

    /// Declarations up to a `}` (not consumed), with pragmas in between.
    fn parse_decls_until_rbrace(&mut self, ctx: DeclContext) -> Vec<DeclId> {
        let mut decls = Vec::new();
        while !self.at(Punct::RBrace) && !self.at_eof() {
            self.flush_pragmas(&mut decls);
            let before = self.pos;
            decls.extend(self.parse_declaration(ctx));
            if self.pos == before {
                self.bump();
            }
        }
        decls
    }

    fn parse_buffer(&mut self, attrs: Vec<Attribute>, start: Span) -> Option<DeclId> {
        let kw_tok = self.bump();
        let kind =
            if self.kw_of(kw_tok) == Some(Kw::TBuffer) { BufferKind::TBuffer } else { BufferKind::CBuffer };
        let t = self.peek();
        if !self.is_name(t) {
            let span = self.error_span();
            self.error(span, "expected identifier");
            self.skip_to_statement_end();
            return None;
        }
        self.bump();
        let name = Ident { name: t.sym, span: t.origin };
        let annotations = self.parse_annotations();
        if !self.at(Punct::LBrace) {
            let span = self.error_span();
            self.error(span, "expected '{'");
            self.skip_to_statement_end();
            return None;
        }
        let open = self.bump();
        let decls = self.parse_decls_until_rbrace(DeclContext::Buffer);
        self.expect_closing(Punct::RBrace, open);
        self.eat(Punct::Semi);
        let kind = DeclKind::Buffer { kind, name, annotations, decls };
        Some(self.add_decl(kind, attrs, Modifiers::default(), self.span_from(start)))
    }

    fn parse_static_assert(&mut self, attrs: Vec<Attribute>, start: Span) -> Option<DeclId> {
        self.bump();
        let open = self.peek();
        if !self.expect(Punct::LParen, None) {
            self.skip_to_statement_end();
            return None;
        }
        let condition = self.parse_assign();
        let message = if self.eat(Punct::Comma) { Some(self.parse_assign()) } else { None };
        self.expect_closing(Punct::RParen, open);
        if !self.eat(Punct::Semi) {
            let span = self.error_span();
            self.error(span, "expected ';' after static_assert");
        }
        let kind = DeclKind::StaticAssert { condition, message };
        Some(self.add_decl(kind, attrs, Modifiers::default(), self.span_from(start)))
    }

    fn parse_template(&mut self, attrs: Vec<Attribute>, start: Span, ctx: DeclContext) -> Vec<DeclId> {
        self.bump();
        let open = self.peek();
        if !self.expect(Punct::Lt, None) {
            self.skip_to_statement_end();
            return Vec::new();
        }
        self.push_scope();
        let mut params = Vec::new();
        let saved = std::mem::replace(&mut self.no_greater, true);
        while !matches!(self.peek().kind, TokenKind::Punct(Punct::Gt | Punct::Shr)) && !self.at_eof() {
            let p_start = self.peek().origin;
            let param = if self.eat_kw(Kw::Typename) || self.eat_kw(Kw::Class) {
                let t = self.peek();
                let name = if self.is_name(t) {
                    self.bump();
                    self.declare(t.sym, NameKind::Type);
                    Some(Ident { name: t.sym, span: t.origin })
                } else {
                    None
                };
                let default = if self.eat(Punct::Eq) { self.parse_type() } else { None };
                TemplateParam {
                    kind: TemplateParamKind::Type { default },
                    name,
                    span: self.span_from(p_start),
                }
            } else {
                let Some(ty) = self.parse_type() else { break };
                let t = self.peek();
                let name = if self.is_name(t) {
                    self.bump();
                    self.declare(t.sym, NameKind::Value);
                    Some(Ident { name: t.sym, span: t.origin })
                } else {
                    None
                };
                let default = if self.eat(Punct::Eq) { Some(self.parse_assign()) } else { None };
                TemplateParam {
                    kind: TemplateParamKind::Value { ty, default },
                    name,
                    span: self.span_from(p_start),
                }
            };
            params.push(param);
            if !self.eat(Punct::Comma) {
                break;
            }
        }
        self.no_greater = saved;
        if !self.eat_closing_angle() {
            let span = self.error_span();
            self.report(
                crate::diag::Diagnostic::error(Some(span), "expected '>'")
                    .with_note(Some(open.origin), "to match this '<'"),
            );
        }
        // A class template's name is a template inside its own body too
        // (`template <class T> struct S { template <class U> S<U> cast(); }`).
        let head = self.peek();
        if matches!(self.kw_of(head), Some(Kw::Struct | Kw::Class)) && self.is_name(self.peek_at(1)) {
            self.declare(self.peek_at(1).sym, NameKind::TypeTemplate);
        }
        let inner = self.parse_declaration(ctx);
        self.pop_scope();
        // The templated name is a template in the enclosing scope.
        let mut out = Vec::new();
        for decl in inner {
            let kind = match &self.ast.decl(decl).kind {
                DeclKind::Struct { name: Some(n), .. } => Some((n.name, NameKind::TypeTemplate)),
                DeclKind::Function(f) => f.name.last().map(|n| (n.name, NameKind::FunctionTemplate)),
                DeclKind::TypeAlias { name, .. } => Some((name.name, NameKind::TypeTemplate)),
                DeclKind::Var(v) => v.name.map(|n| (n.name, NameKind::FunctionTemplate)),
                _ => None,
            };
            if let Some((name, kind)) = kind {
                self.declare(name, kind);
            }
            let kind = DeclKind::Template { params: params.clone(), decl };
            out.push(self.add_decl(kind, attrs.clone(), Modifiers::default(), self.span_from(start)));
        }
        out
    }

    fn effects_keyword(&self, tok: crate::lexer::Token) -> bool {
        matches!(self.text(tok), "technique" | "technique10" | "technique11" | "pass")
            && self.peek_at(1).kind == TokenKind::Ident
    }

    /// `technique T { pass P { ... } }`: effect-framework syntax, warned about and skipped.
    fn skip_effect_block(&mut self, tok: crate::lexer::Token) -> Vec<DeclId> {
        self.bump();
        self.bump();
        self.report(crate::diag::Diagnostic::warning(
            Some(tok.origin),
            "effects-syntax",
            "effect state block ignored - effect syntax is deprecated",
        ));
        if self.at(Punct::Lt) {
            self.skip_effect_annotations();
        }
        if self.at(Punct::LBrace) {
            self.skip_balanced();
        }
        self.eat(Punct::Semi);
        vec![self.add_decl(DeclKind::Empty, Vec::new(), Modifiers::default(), self.span_from(tok.origin))]
    }
}
