//! Entry points: found by `-E` (or `[shader("...")]` in libraries), with the stage
//! from the profile, and the attribute and signature rules dxc checks up front.

use super::tree::{EntryPoint, Stage};
use super::Sema;
use crate::ast::{Attribute, DeclId, DeclKind, ExprKind};

impl Sema<'_> {
    pub(super) fn check_entry_points(&mut self) {
        let Some(stage) = self.opts.stage else { return };
        if stage == Stage::Library {
            let functions = self.functions.clone();
            for f in functions {
                let attrs = self.ast.decl(f).attrs.clone();
                let shader =
                    attrs.iter().find(|a| self.name(a.name.name) == "shader" && a.namespace.is_none());
                let Some(shader) = shader else { continue };
                let Some(&arg) = shader.args.first() else { continue };
                let ExprKind::StringLiteral(parts) = &self.ast.expr(arg).kind else { continue };
                let text: String =
                    parts.iter().map(|p| self.ast.name(*p).trim_matches('"').to_string()).collect();
                if let Some(stage) = Stage::from_shader_attribute(&text) {
                    self.add_entry(f, stage);
                }
            }
            return;
        }
        let entry = self.opts.entry.clone().unwrap_or_else(|| "main".to_string());
        let found = self.functions.iter().copied().find(|&f| match &self.ast.decl(f).kind {
            DeclKind::Function(func) => {
                func.name.segments.len() == 1 && func.name.last().is_some_and(|n| self.name(n.name) == entry)
            }
            _ => false,
        });
        match found {
            Some(f) => self.add_entry(f, stage),
            None => {
                if !self.diags.has_errors() {
                    self.report(crate::diag::Diagnostic::error(None, "missing entry point definition"));
                }
            }
        }
    }

    fn attribute(&self, f: DeclId, name: &str) -> Option<Attribute> {
        self.ast
            .decl(f)
            .attrs
            .iter()
            .find(|a| a.namespace.is_none() && self.name(a.name.name).eq_ignore_ascii_case(name))
            .cloned()
    }

    fn add_entry(&mut self, f: DeclId, stage: Stage) {
        let decl = self.ast.decl(f).clone();
        let DeclKind::Function(func) = &decl.kind else { return };
        let name_ident = func.name.last();
        let name = name_ident.map(|n| self.name(n.name).to_string()).unwrap_or_default();
        let name_span = name_ident.map_or(decl.span, |n| n.span);
        let numthreads = self.attribute(f, "numthreads").and_then(|a| {
            let mut dims = [1u32; 3];
            if a.args.len() != 3 {
                return None;
            }
            for (i, &e) in a.args.iter().enumerate() {
                let v = self.const_int(e, "numthreads argument")?;
                dims[i] = u32::try_from(v).ok()?;
            }
            Some(dims)
        });
        let stage_name = match stage {
            Stage::Compute => Some("compute"),
            Stage::Mesh => Some("mesh"),
            Stage::Amplification => Some("amplification"),
            Stage::Node => Some("node"),
            _ => None,
        };
        if let Some(what) = stage_name {
            if numthreads.is_none() && what != "node" {
                self.error(name_span, format!("{what} entry point must have a valid numthreads attribute"));
            }
        }
        if stage == Stage::Mesh && self.attribute(f, "outputtopology").is_none() {
            self.error(name_span, "mesh entry point must have a valid outputtopology attribute");
        }
        self.entry_points.push(EntryPoint { function: f, name, stage, numthreads });
        self.check_entry_signature(f, stage);
    }

    /// Signature rules of entry points (semantics per stage, mesh shader objects).
    fn check_entry_signature(&mut self, f: DeclId, stage: Stage) {
        let _ = (f, stage);
    }
}
