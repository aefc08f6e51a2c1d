//! The front end in one call: read, preprocess, parse, analyze. The driver, the fuzzer and
//! the benchmarks all go through here.

use crate::ast::Ast;
use crate::diag::{DiagOptions, Diagnostics};
use crate::lexer::Interner;
use crate::parser::{self, ParseOptions};
use crate::preprocessor::{self, FileLoader, PreprocessOptions, Preprocessed};
use crate::sema::tree::TypedTree;
use crate::sema::SemaOptions;
use crate::source::{FileId, SourceMap};
use std::path::PathBuf;

#[derive(Clone, Debug, Default)]
pub struct FrontendOptions {
    pub preprocess: PreprocessOptions,
    pub parse: ParseOptions,
    pub diag: DiagOptions,
    pub sema: SemaOptions,
}

/// Everything the front end produced, diagnostics included.
pub struct Frontend {
    pub sources: SourceMap,
    pub main: FileId,
    pub diags: Diagnostics,
    /// The syntax tree; empty once sema took it into [`Frontend::typed`].
    pub ast: Ast,
    /// The typed tree, when semantic analysis ran.
    pub typed: Option<TypedTree>,
}

impl Frontend {
    /// Diagnostics rendered clang-style.
    pub fn render_diagnostics(&self) -> String {
        self.diags.render(&self.sources)
    }

    /// `-ast-dump`: the typed tree when sema ran, else the syntax tree.
    pub fn dump(&self) -> String {
        match &self.typed {
            Some(t) => crate::dump::dump_typed(t, &self.sources),
            None => crate::dump::dump(&self.ast, &self.sources),
        }
    }

    /// The syntax tree, wherever it is now.
    pub fn syntax(&self) -> &Ast {
        self.typed.as_ref().map_or(&self.ast, |t| &t.ast)
    }
}

/// Preprocesses only (`-P`): the tokens, the interner and the diagnostics.
pub fn preprocess_only(
    name: &str,
    path: Option<PathBuf>,
    text: String,
    options: &FrontendOptions,
    loader: &dyn FileLoader,
) -> (SourceMap, Interner, Preprocessed, Diagnostics) {
    let mut sources = SourceMap::new();
    let mut interner = Interner::new();
    let mut diags = Diagnostics::new(options.diag.clone());
    let main = sources.add(name, path, text);
    let pre =
        preprocessor::preprocess(main, &mut sources, &mut interner, &mut diags, &options.preprocess, loader);
    (sources, interner, pre, diags)
}

/// Preprocesses and parses one translation unit.
pub fn parse_source(
    name: &str,
    path: Option<PathBuf>,
    text: String,
    options: &FrontendOptions,
    loader: &dyn FileLoader,
) -> Frontend {
    let (sources, interner, pre, mut diags) = preprocess_only(name, path, text, options, loader);
    let ast = parser::parse(pre, interner, &mut diags, options.parse);
    Frontend { sources, main: FileId(0), diags, ast, typed: None }
}

/// Preprocesses, parses and, when parsing succeeded, runs semantic analysis.
pub fn analyze_source(
    name: &str,
    path: Option<PathBuf>,
    text: String,
    options: &FrontendOptions,
    loader: &dyn FileLoader,
) -> Frontend {
    let mut fe = parse_source(name, path, text, options, loader);
    // Sema on a tree with syntax errors would mostly report their echoes.
    if !fe.diags.has_errors() {
        let ast = std::mem::take(&mut fe.ast);
        fe.typed = Some(crate::sema::analyze(ast, &mut fe.diags, &options.sema));
    }
    fe
}
