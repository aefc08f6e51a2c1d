//! LLVM lit's test-script language, for the harnesses that run a corpus's RUN lines as
//! lit would: the directives (`RUN:`, `REQUIRES:`, `UNSUPPORTED:`, `XFAIL:`), `%if`
//! conditional text, the `%s`/`%t` substitutions, and the subset of lit's shell the
//! corpora use (pipelines, `&&`/`||`/`;`, redirections, `not`), executed with
//! `std::process` pipes rather than through a shell.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// The directives of one test file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Directives {
    /// `(1-based line of the first RUN line, command)`, continuations joined.
    pub runs: Vec<(usize, String)>,
    /// Each `REQUIRES:` entry (comma-separated boolean expressions, all needed).
    pub requires: Vec<String>,
    /// Each `UNSUPPORTED:` entry (any true one skips the test).
    pub unsupported: Vec<String>,
    /// Each `XFAIL:` entry (any true one means the test is expected to fail).
    pub xfail: Vec<String>,
}

/// Reads the directives as lit does: a keyword anywhere on a line (lit matches
/// `RUN:` even inside a CHECK line quoting one), a RUN line ending in `\` continued
/// by the next RUN line.
pub fn parse_directives(text: &str) -> Result<Directives, String> {
    let mut out = Directives::default();
    let mut continuing = false;
    for (n, line) in text.lines().enumerate() {
        if let Some(at) = line.find("RUN:") {
            let content = line[at + "RUN:".len()..].trim();
            if continuing {
                let last = out.runs.last_mut().expect("continuing a RUN line");
                last.1.pop(); // the `\`
                last.1.push(' ');
                last.1.push_str(content);
            } else {
                out.runs.push((n + 1, content.to_string()));
            }
            continuing = content.ends_with('\\');
            continue;
        }
        if continuing {
            return Err(format!("line {}: a RUN line ends in `\\` but the next line is no RUN line", n));
        }
        for (keyword, list) in [
            ("REQUIRES:", &mut out.requires),
            ("UNSUPPORTED:", &mut out.unsupported),
            ("XFAIL:", &mut out.xfail),
        ] {
            if let Some(at) = line.find(keyword) {
                let content = &line[at + keyword.len()..];
                list.extend(content.split(',').map(str::trim).filter(|s| !s.is_empty()).map(str::to_string));
            }
        }
    }
    if continuing {
        return Err("the last RUN line ends in `\\`".into());
    }
    for run in &mut out.runs {
        run.1 = run.1.trim().to_string();
    }
    Ok(out)
}

/// lit's boolean feature expressions (`a && !(b || c)`, `*` for "always"), as in
/// `REQUIRES:`, `UNSUPPORTED:` and `XFAIL:`. A word is true when `available` says so.
pub fn eval_feature_expr(expr: &str, available: &dyn Fn(&str) -> bool) -> Result<bool, String> {
    let expr = expr.trim();
    if expr == "*" {
        return Ok(true);
    }
    let mut tokens = Vec::new();
    let mut chars = expr.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            ' ' | '\t' => {}
            '(' | ')' | '!' => tokens.push(c.to_string()),
            '&' | '|' => {
                if chars.next().map(|(_, d)| d) != Some(c) {
                    return Err(format!("`{c}` must be doubled in `{expr}`"));
                }
                tokens.push(format!("{c}{c}"));
            }
            _ => {
                let mut end = i + c.len_utf8();
                while let Some(&(j, d)) = chars.peek() {
                    if d.is_whitespace() || "()!&|".contains(d) {
                        break;
                    }
                    end = j + d.len_utf8();
                    chars.next();
                }
                tokens.push(expr[i..end].to_string());
            }
        }
    }
    struct Parser<'a> {
        tokens: Vec<String>,
        at: usize,
        available: &'a dyn Fn(&str) -> bool,
    }
    impl Parser<'_> {
        fn or(&mut self) -> Result<bool, String> {
            let mut value = self.and()?;
            while self.tokens.get(self.at).is_some_and(|t| t == "||") {
                self.at += 1;
                value |= self.and()?;
            }
            Ok(value)
        }
        fn and(&mut self) -> Result<bool, String> {
            let mut value = self.not()?;
            while self.tokens.get(self.at).is_some_and(|t| t == "&&") {
                self.at += 1;
                value &= self.not()?;
            }
            Ok(value)
        }
        fn not(&mut self) -> Result<bool, String> {
            match self.tokens.get(self.at).map(String::as_str) {
                Some("!") => {
                    self.at += 1;
                    Ok(!self.not()?)
                }
                Some("(") => {
                    self.at += 1;
                    let value = self.or()?;
                    if self.tokens.get(self.at).map(String::as_str) != Some(")") {
                        return Err("missing `)`".into());
                    }
                    self.at += 1;
                    Ok(value)
                }
                Some(word) if !matches!(word, ")" | "&&" | "||") => {
                    self.at += 1;
                    Ok(match word {
                        "true" => true,
                        "false" => false,
                        w => (self.available)(w),
                    })
                }
                other => Err(format!("expected a feature, found {other:?}")),
            }
        }
    }
    let mut parser = Parser { tokens, at: 0, available };
    let value = parser.or()?;
    if parser.at != parser.tokens.len() {
        return Err(format!("trailing text in `{expr}`"));
    }
    Ok(value)
}

/// lit's `%if FEATURE %{ A %} [%else %{ B %}]`: keeps A when `available(FEATURE)`,
/// else B (or nothing).
pub fn expand_if(command: &str, available: &dyn Fn(&str) -> bool) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = command;
    while let Some(at) = rest.find("%if") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 3..];
        let open = after.find("%{").ok_or("`%if` without `%{`")?;
        let chosen = eval_feature_expr(&after[..open], available)?;
        let (then_body, after) = take_braced(&after[open..])?;
        if chosen {
            out.push_str(then_body);
        }
        let trimmed = after.trim_start();
        if let Some(else_part) = trimmed.strip_prefix("%else") {
            let open = else_part.find("%{").ok_or("`%else` without `%{`")?;
            let (body, after) = take_braced(&else_part[open..])?;
            if !chosen {
                out.push_str(body);
            }
            rest = after;
        } else {
            rest = after;
        }
    }
    out.push_str(rest);
    Ok(out)
}

/// Splits `%{ body %} rest` (nesting allowed) into `(body, rest)`.
fn take_braced(text: &str) -> Result<(&str, &str), String> {
    let mut depth = 0;
    let mut i = 0;
    while i < text.len() {
        if text[i..].starts_with("%{") {
            depth += 1;
            i += 2;
        } else if text[i..].starts_with("%}") {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return Ok((&text[2..i - 2], &text[i..]));
            }
        } else {
            i += text[i..].chars().next().map_or(1, char::len_utf8);
        }
    }
    Err("`%{` without `%}`".into())
}

/// lit's substitutions in one word, left to right: the named ones (`%dxc`, longest
/// first) and lit's own `%s` (the test file), `%S`/`%p` (its folder), `%t` (a scratch
/// path for this test), `%T` (its folder), `%%` (a `%`). Any other `%` stays.
pub fn substitute(word: &str, named: &[(&str, String)], file: &Path, tmp: &Path) -> String {
    let mut out = String::with_capacity(word.len());
    let mut i = 0;
    let dir = |p: &Path| p.parent().unwrap_or(Path::new(".")).display().to_string();
    'outer: while i < word.len() {
        let rest = &word[i..];
        if !rest.starts_with('%') {
            let c = rest.chars().next().expect("in bounds");
            out.push(c);
            i += c.len_utf8();
            continue;
        }
        for (name, value) in named {
            let ends_word = rest[name.len().min(rest.len())..]
                .chars()
                .next()
                .is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '_'));
            if rest.starts_with(name) && ends_word {
                out.push_str(value);
                i += name.len();
                continue 'outer;
            }
        }
        let replacement = match rest.as_bytes().get(1) {
            Some(b's') => file.display().to_string(),
            Some(b'S' | b'p') => dir(file),
            Some(b't') => tmp.display().to_string(),
            Some(b'T') => dir(tmp),
            Some(b'%') => "%".to_string(),
            _ => {
                out.push('%');
                i += 1;
                continue;
            }
        };
        out.push_str(&replacement);
        i += 2;
    }
    out
}

/// Where a redirection sends a stream.
#[derive(Clone, Debug, PartialEq)]
pub enum Redirect {
    /// `> FILE` / `>> FILE` (`fd` 1) or `2> FILE` / `2>> FILE` (`fd` 2).
    ToFile { fd: u8, path: String, append: bool },
    /// `2>&1` (`fd` 2 to 1) or `>&2` / `1>&2` (`fd` 1 to 2).
    Dup { fd: u8, to: u8 },
    /// `< FILE`.
    FromFile(String),
}

/// One command of a pipeline: its words and redirections, in order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Cmd {
    pub words: Vec<String>,
    pub redirects: Vec<Redirect>,
}

/// How a pipeline joins the one before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Join {
    First,
    /// `;`
    Always,
    /// `&&`
    IfOk,
    /// `||`
    IfFailed,
}

/// A RUN line: pipelines joined by `;`, `&&`, `||`.
pub type Script = Vec<(Join, Vec<Cmd>)>;

#[derive(Clone, Debug, PartialEq)]
enum Token {
    Word(String),
    Pipe,
    And,
    Or,
    Semi,
    Redirect(Redirect),
}

/// Splits a RUN line into lit's shell tokens: words (with `'..'`, `".."` and `\`
/// quoting), `|`, `&&`, `||`, `;` and redirections. What the corpora do not use and
/// lit's shell does not do either (`$(..)`, backquotes, `&` jobs, subshells) is an
/// error that names it.
fn tokenize(line: &str) -> Result<Vec<Token>, String> {
    let mut tokens = Vec::new();
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        let two: String = chars[i..(i + 2).min(chars.len())].iter().collect();
        let three: String = chars[i..(i + 4).min(chars.len())].iter().collect();
        let redirect_word = |at: usize| -> Result<(String, usize), String> {
            let mut j = at;
            while j < chars.len() && chars[j].is_whitespace() {
                j += 1;
            }
            let (word, next) = read_word(&chars, j)?;
            if word.is_empty() {
                return Err("a redirection without a file".into());
            }
            Ok((word, next))
        };
        if three.starts_with("2>&1") {
            tokens.push(Token::Redirect(Redirect::Dup { fd: 2, to: 1 }));
            i += 4;
        } else if three.starts_with("1>&2") {
            tokens.push(Token::Redirect(Redirect::Dup { fd: 1, to: 2 }));
            i += 4;
        } else if two == ">&" && chars.get(i + 2) == Some(&'2') {
            tokens.push(Token::Redirect(Redirect::Dup { fd: 1, to: 2 }));
            i += 3;
        } else if two == "&>" {
            let (path, next) = redirect_word(i + 2)?;
            tokens.push(Token::Redirect(Redirect::ToFile { fd: 1, path, append: false }));
            tokens.push(Token::Redirect(Redirect::Dup { fd: 2, to: 1 }));
            i = next;
        } else if c == '>' || ((c == '1' || c == '2') && chars.get(i + 1) == Some(&'>')) {
            let fd = if c == '2' { 2 } else { 1 };
            let mut j = if c == '>' { i + 1 } else { i + 2 };
            let append = chars.get(j) == Some(&'>');
            if append {
                j += 1;
            }
            let (path, next) = redirect_word(j)?;
            tokens.push(Token::Redirect(Redirect::ToFile { fd, path, append }));
            i = next;
        } else if c == '<' {
            let (path, next) = redirect_word(i + 1)?;
            tokens.push(Token::Redirect(Redirect::FromFile(path)));
            i = next;
        } else if two == "&&" {
            tokens.push(Token::And);
            i += 2;
        } else if two == "||" {
            tokens.push(Token::Or);
            i += 2;
        } else if c == '|' {
            tokens.push(Token::Pipe);
            i += 1;
        } else if c == ';' {
            tokens.push(Token::Semi);
            i += 1;
        } else if c == '&' {
            return Err("`&` (background jobs) is not supported".into());
        } else if c == '(' || c == ')' {
            return Err("subshells `( .. )` are not supported".into());
        } else {
            let (word, next) = read_word(&chars, i)?;
            tokens.push(Token::Word(word));
            i = next;
        }
    }
    Ok(tokens)
}

/// One shell word from `chars[at..]`: `(word, index after it)`.
fn read_word(chars: &[char], at: usize) -> Result<(String, usize), String> {
    let mut word = String::new();
    let mut i = at;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() || "|&;<>()".contains(c) {
            break;
        }
        match c {
            '\'' => {
                let end = chars[i + 1..].iter().position(|&d| d == '\'').ok_or("unterminated `'`")?;
                word.extend(&chars[i + 1..i + 1 + end]);
                i += end + 2;
            }
            '"' => {
                i += 1;
                loop {
                    match chars.get(i) {
                        None => return Err("unterminated `\"`".into()),
                        Some('"') => break,
                        Some('\\') if chars.get(i + 1).is_some_and(|d| "\"\\$`".contains(*d)) => {
                            word.push(chars[i + 1]);
                            i += 2;
                        }
                        Some('$' | '`') => return Err("`$` and backquotes are not supported".into()),
                        Some(&d) => {
                            word.push(d);
                            i += 1;
                        }
                    }
                }
                i += 1;
            }
            '\\' => {
                if let Some(&d) = chars.get(i + 1) {
                    word.push(d);
                }
                i += 2;
            }
            '$' | '`' => return Err("`$` and backquotes are not supported".into()),
            _ => {
                word.push(c);
                i += 1;
            }
        }
    }
    Ok((word, i))
}

/// Parses a RUN line (after `%if` expansion) into pipelines of commands.
pub fn parse_script(line: &str) -> Result<Script, String> {
    let mut script: Script = Vec::new();
    let mut join = Join::First;
    let mut pipeline: Vec<Cmd> = Vec::new();
    let mut cmd = Cmd::default();
    let finish_cmd = |cmd: &mut Cmd, pipeline: &mut Vec<Cmd>| -> Result<(), String> {
        if cmd.words.is_empty() {
            return Err("an empty command".into());
        }
        pipeline.push(std::mem::take(cmd));
        Ok(())
    };
    for token in tokenize(line)? {
        match token {
            Token::Word(w) => cmd.words.push(w),
            Token::Redirect(r) => cmd.redirects.push(r),
            Token::Pipe => finish_cmd(&mut cmd, &mut pipeline)?,
            Token::And | Token::Or | Token::Semi => {
                finish_cmd(&mut cmd, &mut pipeline)?;
                script.push((join, std::mem::take(&mut pipeline)));
                join = match token {
                    Token::And => Join::IfOk,
                    Token::Or => Join::IfFailed,
                    _ => Join::Always,
                };
            }
        }
    }
    if !(cmd.words.is_empty() && cmd.redirects.is_empty() && pipeline.is_empty() && join == Join::First) {
        finish_cmd(&mut cmd, &mut pipeline)?;
        script.push((join, pipeline));
    }
    Ok(script)
}

/// What `not` prefixes ask of a command's result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    /// No `not`: exit status 0.
    Success,
    /// `not`: a non-zero exit status, no crash (LLVM's `not`).
    Failure,
    /// `not --crash`: killed by a signal.
    Crash,
}

/// A command's words without its `not` / `not --crash` prefixes, and what they ask.
/// `not not X` asks X to succeed, as LLVM's `not` nested does.
pub fn strip_not(words: &[String]) -> (Expect, &[String]) {
    let mut expect = Expect::Success;
    let mut rest = words;
    while rest.first().is_some_and(|w| w == "not") {
        if rest.get(1).is_some_and(|w| w == "--crash") {
            expect = Expect::Crash;
            rest = &rest[2..];
        } else {
            expect = if expect == Expect::Failure { Expect::Success } else { Expect::Failure };
            rest = &rest[1..];
        }
    }
    (expect, rest)
}

/// How one command of a RUN line ended.
#[derive(Clone, Debug, Default)]
pub struct CmdResult {
    /// The command as run (program then arguments, after substitution).
    pub argv: Vec<String>,
    /// Its own exit: 0 / a status / a crash; `None` when it never ran or timed out.
    pub status: Option<ExitStatus>,
    /// Its result after `not`: what the pipeline sees.
    pub ok: bool,
    /// What it wrote to standard error (when not redirected).
    pub stderr: String,
    /// The start of what it wrote into the pipe to the next command (with `2>&1`,
    /// its messages too), for reports.
    pub piped: String,
    /// Why it did not run (missing program, bad redirection).
    pub error: Option<String>,
}

/// How a RUN line ended.
#[derive(Clone, Debug, Default)]
pub struct ScriptResult {
    pub ok: bool,
    pub timed_out: bool,
    /// Every command that ran, in order.
    pub commands: Vec<CmdResult>,
}

impl ScriptResult {
    /// The first command that failed, and the first informative line it printed.
    pub fn first_failure(&self) -> Option<(&CmdResult, String)> {
        if self.timed_out {
            return self.commands.last().map(|c| (c, "timed out".to_string()));
        }
        let cmd = self.commands.iter().find(|c| !c.ok)?;
        let line = if let Some(e) = &cmd.error {
            e.clone()
        } else {
            // Its stderr, or what went down the pipe (`2>&1`): the first error, else
            // the last line (a tool's verdict comes last, after any warnings).
            let text = if cmd.stderr.trim().is_empty() { &cmd.piped } else { &cmd.stderr };
            let lines: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
            lines.iter().find(|l| l.contains("error")).or(lines.last()).map(|l| l.to_string()).unwrap_or_else(
                || match cmd.status {
                    Some(s) if s.success() => "exited 0 where a failure was expected".to_string(),
                    Some(s) => format!("{s}, nothing on stderr"),
                    None => "did not run".to_string(),
                },
            )
        };
        Some((cmd, line))
    }
}

/// How to run scripts: the tools that stand behind names (`FileCheck` ->
/// `FileCheck-22`), the working folder, the time allowed per RUN line.
pub struct Runner {
    pub tools: BTreeMap<String, PathBuf>,
    /// Variables set for every command.
    pub env: Vec<(String, String)>,
    pub cwd: PathBuf,
    pub timeout: Duration,
}

/// Bytes kept of each captured stream (the rest is read and dropped).
const CAPTURE_LIMIT: u64 = 16 << 20;

/// Bytes kept of what goes down a pipe between two commands.
const TEE_LIMIT: usize = 64 << 10;

/// Passes `reader` on to the returned pipe end, keeping its first [`TEE_LIMIT`] bytes.
/// When the next command stops reading, the rest is drained (lit's FileCheck reads
/// all of its input, so a writer never sees a closed pipe there either).
fn tee(
    mut reader: std::io::PipeReader,
) -> std::io::Result<(std::io::PipeReader, std::thread::JoinHandle<Vec<u8>>)> {
    use std::io::Write;
    let (next_reader, mut writer) = std::io::pipe()?;
    let handle = std::thread::spawn(move || {
        let mut kept = Vec::new();
        let mut buf = [0u8; 8192];
        let mut forwarding = true;
        loop {
            let n = match reader.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            if kept.len() < TEE_LIMIT {
                kept.extend_from_slice(&buf[..n.min(TEE_LIMIT - kept.len())]);
            }
            if forwarding && writer.write_all(&buf[..n]).is_err() {
                forwarding = false;
            }
        }
        kept
    });
    Ok((next_reader, handle))
}

fn capture(reader: impl Read + Send + 'static) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut kept = Vec::new();
        let mut reader = reader;
        let _ = (&mut reader).take(CAPTURE_LIMIT).read_to_end(&mut kept);
        let _ = std::io::copy(&mut reader, &mut std::io::sink());
        kept
    })
}

impl Runner {
    /// Runs a parsed RUN line with lit's `pipefail`: a pipeline fails when any of its
    /// commands fails (after `not`).
    pub fn run(&self, script: &Script) -> ScriptResult {
        let deadline = Instant::now() + self.timeout;
        let mut result = ScriptResult { ok: true, ..Default::default() };
        let mut last_ok = true;
        for (join, pipeline) in script {
            let run = match join {
                Join::First | Join::Always => true,
                Join::IfOk => last_ok,
                Join::IfFailed => !last_ok,
            };
            if !run {
                continue;
            }
            let (ok, timed_out, commands) = self.run_pipeline(pipeline, deadline);
            result.commands.extend(commands);
            last_ok = ok;
            if timed_out {
                result.timed_out = true;
                result.ok = false;
                return result;
            }
        }
        result.ok = last_ok;
        result
    }

    fn open_file(&self, path: &str, append: bool) -> std::io::Result<File> {
        let path = self.cwd.join(path);
        std::fs::OpenOptions::new().create(true).write(true).append(append).truncate(!append).open(path)
    }

    /// Runs one pipeline: `(ok, timed out, commands)`.
    fn run_pipeline(&self, pipeline: &[Cmd], deadline: Instant) -> (bool, bool, Vec<CmdResult>) {
        #[derive(Clone, PartialEq)]
        enum Sink {
            Stdout,
            Stderr,
            File(String, bool),
        }
        let mut results: Vec<CmdResult> = Vec::new();
        let mut children: Vec<(usize, Child, Expect)> = Vec::new();
        let mut stderr_readers = Vec::new();
        let mut tees = Vec::new();
        let mut next_stdin: Option<std::io::PipeReader> = None;
        let mut last_stdout = None;
        for (index, cmd) in pipeline.iter().enumerate() {
            let last = index + 1 == pipeline.len();
            let (expect, words) = strip_not(&cmd.words);
            let mut record = CmdResult { argv: words.to_vec(), ..Default::default() };
            let stdin = next_stdin.take();
            let Some(program) = words.first() else {
                record.error = Some("`not` without a command".into());
                results.push(record);
                continue;
            };
            let program = self.tools.get(program).cloned().unwrap_or_else(|| PathBuf::from(program));
            record.argv[0] = program.display().to_string();
            // Where fd 1 and 2 go, after the redirections in order.
            let (mut out, mut err) = (Sink::Stdout, Sink::Stderr);
            let mut input: Option<String> = None;
            for r in &cmd.redirects {
                match r {
                    Redirect::ToFile { fd: 1, path, append } => out = Sink::File(path.clone(), *append),
                    Redirect::ToFile { path, append, .. } => err = Sink::File(path.clone(), *append),
                    Redirect::Dup { fd: 2, .. } => err = out.clone(),
                    Redirect::Dup { .. } => out = err.clone(),
                    Redirect::FromFile(path) => input = Some(path.clone()),
                }
            }
            let setup = (|| -> std::io::Result<(Command, Option<std::io::PipeReader>, Option<std::io::PipeReader>)> {
                let mut command = Command::new(&program);
                command.args(&words[1..]).current_dir(&self.cwd);
                command.envs(self.env.iter().map(|(k, v)| (k, v)));
                match (&input, stdin) {
                    (Some(path), _) => command.stdin(File::open(self.cwd.join(path))?),
                    (None, Some(reader)) => command.stdin(reader),
                    (None, None) => command.stdin(Stdio::null()),
                };
                let (out_reader, out_writer) = std::io::pipe()?;
                let (err_reader, err_writer) = std::io::pipe()?;
                let stdio_for = |sink: &Sink| -> std::io::Result<Stdio> {
                    Ok(match sink {
                        Sink::Stdout => out_writer.try_clone()?.into(),
                        Sink::Stderr => err_writer.try_clone()?.into(),
                        Sink::File(path, append) => self.open_file(path, *append)?.into(),
                    })
                };
                command.stdout(stdio_for(&out)?);
                command.stderr(stdio_for(&err)?);
                let out_used = out == Sink::Stdout || err == Sink::Stdout;
                let err_used = out == Sink::Stderr || err == Sink::Stderr;
                drop((out_writer, err_writer));
                Ok((command, out_used.then_some(out_reader), err_used.then_some(err_reader)))
            })();
            let (mut command, out_reader, err_reader) = match setup {
                Ok(parts) => parts,
                Err(e) => {
                    record.error = Some(format!("cannot set up {}: {e}", program.display()));
                    results.push(record);
                    continue;
                }
            };
            match command.spawn() {
                Ok(child) => {
                    drop(command); // the parent's copies of the pipe ends
                    children.push((results.len(), child, expect));
                }
                Err(e) => {
                    drop(command);
                    record.error = Some(format!("cannot run {}: {e}", program.display()));
                }
            }
            if last {
                last_stdout = out_reader.map(capture);
            } else if let Some(reader) = out_reader {
                match tee(reader) {
                    Ok((next, handle)) => {
                        next_stdin = Some(next);
                        tees.push((results.len(), handle));
                    }
                    Err(e) => record.error = Some(format!("cannot make a pipe: {e}")),
                }
            }
            stderr_readers.push((results.len(), err_reader.map(capture)));
            results.push(record);
        }
        // Wait for every child, killing all at the deadline.
        let mut timed_out = false;
        let mut pending: Vec<(usize, Child, Expect)> = children;
        let mut expects: BTreeMap<usize, Expect> = BTreeMap::new();
        while !pending.is_empty() {
            let mut still = Vec::new();
            for (index, mut child, expect) in pending {
                expects.insert(index, expect);
                match child.try_wait() {
                    Ok(Some(status)) => results[index].status = Some(status),
                    Ok(None) => still.push((index, child, expect)),
                    Err(e) => {
                        let _ = child.kill();
                        let _ = child.wait();
                        results[index].error = Some(format!("waiting: {e}"));
                    }
                }
            }
            pending = still;
            if !pending.is_empty() {
                if Instant::now() >= deadline {
                    timed_out = true;
                    for (_, child, _) in &mut pending {
                        let _ = child.kill();
                        let _ = child.wait();
                    }
                    break;
                }
                std::thread::sleep(Duration::from_millis(1));
            }
        }
        for (index, reader) in stderr_readers {
            if let Some(reader) = reader {
                results[index].stderr =
                    String::from_utf8_lossy(&reader.join().unwrap_or_default()).into_owned();
            }
        }
        for (index, handle) in tees {
            results[index].piped = String::from_utf8_lossy(&handle.join().unwrap_or_default()).into_owned();
        }
        if let Some(reader) = last_stdout {
            let _ = reader.join();
        }
        let mut ok = true;
        for (index, record) in results.iter_mut().enumerate() {
            let expect = expects.get(&index).copied().unwrap_or(Expect::Success);
            record.ok = record.error.is_none()
                && match (record.status, expect) {
                    (None, _) => false,
                    (Some(s), Expect::Success) => s.success(),
                    (Some(s), Expect::Failure) => s.code().is_some_and(|c| c != 0),
                    (Some(s), Expect::Crash) => s.code().is_none(),
                };
            ok &= record.ok;
        }
        (ok && !timed_out, timed_out, results)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(cmd: &Cmd) -> Vec<&str> {
        cmd.words.iter().map(String::as_str).collect()
    }

    #[test]
    fn directives_as_lit_reads_them() {
        let text = "// REQUIRES: dxil-1-10\n// RUN: %dxc -T vs_6_0 \\\n// RUN:   -E main %s\n\
                    // XFAIL: *\n// UNSUPPORTED: a, b && c\n\
                    // CHECK: OpString \"// RUN: %dxc -T ps_6_0 %s | FileCheck %s\n";
        let d = parse_directives(text).unwrap();
        assert_eq!(
            d.runs,
            [(2, "%dxc -T vs_6_0  -E main %s".to_string()), (6, "%dxc -T ps_6_0 %s | FileCheck %s".into())]
        );
        assert_eq!(d.requires, ["dxil-1-10"]);
        assert_eq!(d.xfail, ["*"]);
        assert_eq!(d.unsupported, ["a", "b && c"]);
        assert!(parse_directives("// RUN: a \\\nint x;\n").is_err());
        assert!(parse_directives("// RUN: a \\\n").is_err());
    }

    #[test]
    fn feature_expressions() {
        let have = |f: &str| f == "spirv" || f == "x";
        assert!(eval_feature_expr("*", &have).unwrap());
        assert!(eval_feature_expr("spirv", &have).unwrap());
        assert!(!eval_feature_expr("dxil-1-10", &have).unwrap());
        assert!(eval_feature_expr("!dxil-1-10 && (x || y)", &have).unwrap());
        assert!(!eval_feature_expr("spirv && !x", &have).unwrap());
        assert!(eval_feature_expr("spirv &", &have).is_err());
        assert!(eval_feature_expr("(spirv", &have).is_err());
        assert_eq!(expand_if("a %if spirv %{ b %} %else %{ c %} d", &have).unwrap(), "a  b  d");
        assert_eq!(expand_if("a %if nope %{ b %} %else %{ c %} d", &have).unwrap(), "a  c  d");
        assert_eq!(expand_if("%if nope %{ b %}", &have).unwrap(), "");
    }

    /// Real RUN lines of DXC's SPIR-V tests, as facts.
    #[test]
    fn real_run_lines_parse() {
        let s = parse_script("%dxc -T ps_6_0 -E main -fcgl  %s -spirv | FileCheck %s").unwrap();
        assert_eq!(s.len(), 1);
        assert_eq!(words(&s[0].1[0]), ["%dxc", "-T", "ps_6_0", "-E", "main", "-fcgl", "%s", "-spirv"]);
        assert_eq!(words(&s[0].1[1]), ["FileCheck", "%s"]);

        let s = parse_script(
            "not %dxc -T ps_6_0 -E main -fcgl  %s -spirv  2>&1 | FileCheck %s --check-prefix=ERROR",
        )
        .unwrap();
        assert_eq!(s[0].1[0].redirects, [Redirect::Dup { fd: 2, to: 1 }]);
        assert_eq!(strip_not(&s[0].1[0].words).0, Expect::Failure);
        assert_eq!(words(&s[0].1[1]), ["FileCheck", "%s", "--check-prefix=ERROR"]);

        let s = parse_script(
            "%dxc -T ps_6_0 -E main -fcgl  %s -spirv | FileCheck %s  --implicit-check-not \"OpDecorate {{%[0-9]+}} NoContraction\"",
        )
        .unwrap();
        assert_eq!(
            words(&s[0].1[1]),
            ["FileCheck", "%s", "--implicit-check-not", "OpDecorate {{%[0-9]+}} NoContraction"]
        );

        let s = parse_script("FileCheck --input-file=%t.vk_1_0.hlsl.pp %s --check-prefix=VK_1_0").unwrap();
        assert_eq!(s[0].1.len(), 1);

        let s = parse_script("a > %t.out 2> 'e f' && b < in || c ; d >> x").unwrap();
        assert_eq!(
            s.iter().map(|(j, _)| *j).collect::<Vec<_>>(),
            [Join::First, Join::IfOk, Join::IfFailed, Join::Always]
        );
        assert_eq!(
            s[0].1[0].redirects,
            [
                Redirect::ToFile { fd: 1, path: "%t.out".into(), append: false },
                Redirect::ToFile { fd: 2, path: "e f".into(), append: false }
            ]
        );
        assert_eq!(s[3].1[0].redirects, [Redirect::ToFile { fd: 1, path: "x".into(), append: true }]);
        assert!(parse_script("a $(b)").is_err());
        assert!(parse_script("a `b`").is_err());
        assert!(parse_script("a &").is_err());
        assert!(parse_script("a | | b").is_err());
        let crash = ["not".to_string(), "--crash".into(), "x".into()];
        let (expect, rest) = strip_not(&crash);
        assert_eq!((expect, rest.len()), (Expect::Crash, 1));
        assert_eq!(strip_not(&["not".to_string(), "not".into(), "x".into()]).0, Expect::Success);
    }

    #[test]
    fn substitutions() {
        let named = [("%dxc", "/b/hlsl2spirv".to_string())];
        let file = Path::new("/c/cf.if.hlsl");
        let tmp = Path::new("/w/3/cf.if.hlsl.tmp");
        assert_eq!(substitute("%dxc", &named, file, tmp), "/b/hlsl2spirv");
        assert_eq!(substitute("%s", &named, file, tmp), "/c/cf.if.hlsl");
        assert_eq!(substitute("%t.vk_1_0.hlsl.pp", &named, file, tmp), "/w/3/cf.if.hlsl.tmp.vk_1_0.hlsl.pp");
        assert_eq!(substitute("%S/x %T %%s", &named, file, tmp), "/c/x /w/3 %s");
        // FileCheck patterns keep their `%`.
        assert_eq!(substitute("OpDecorate {{%[0-9]+}}", &named, file, tmp), "OpDecorate {{%[0-9]+}}");
        assert_eq!(substitute("%dxcx", &named, file, tmp), "%dxcx");
    }

    #[cfg(unix)]
    #[test]
    fn pipelines_run_with_pipefail_redirections_and_not() {
        let cwd = std::env::temp_dir().join(format!("spirvkit-lit-test-{}", std::process::id()));
        std::fs::create_dir_all(&cwd).unwrap();
        let runner = Runner {
            tools: BTreeMap::new(),
            env: Vec::new(),
            cwd: cwd.clone(),
            timeout: Duration::from_secs(10),
        };
        let run = |line: &str| runner.run(&parse_script(line).unwrap());
        assert!(run("sh -c 'echo hello' | grep -q hello").ok);
        assert!(!run("sh -c 'echo hello' | grep -q bye").ok);
        // pipefail: a failing first command fails the line even when the last succeeds.
        assert!(!run("sh -c 'echo x; exit 3' | cat").ok);
        assert!(run("not sh -c 'exit 3' | cat").ok);
        // `not` wants a failure, not a success.
        assert!(!run("not true").ok);
        // stderr joins stdout only with 2>&1.
        assert!(run("not sh -c 'echo oops >&2; exit 1' 2>&1 | grep -q oops").ok);
        assert!(!run("not sh -c 'echo oops >&2; exit 1' | grep -q oops").ok);
        // A crash is not a failure for `not`, only for `not --crash`.
        assert!(!run("not sh -c 'kill -SEGV $$'").ok);
        assert!(run("not --crash sh -c 'kill -SEGV $$'").ok);
        // Files, in the working folder.
        assert!(run("sh -c 'echo data' > out.txt && grep -q data < out.txt").ok);
        assert!(run("false || true").ok);
        let with_env = Runner {
            tools: BTreeMap::new(),
            env: vec![("LIT_TEST_VAR".into(), "v1".into())],
            cwd: cwd.clone(),
            timeout: Duration::from_secs(10),
        };
        assert!(with_env.run(&parse_script("sh -c 'test \"$LIT_TEST_VAR\" = v1'").unwrap()).ok);
        let failed = run("sh -c 'echo first error: x >&2; exit 2'");
        let (cmd, line) = failed.first_failure().unwrap();
        assert_eq!(cmd.argv[0], "sh");
        assert_eq!(line, "first error: x");
        assert!(!run("no-such-program-anywhere").ok);
        // With 2>&1 the message went down the pipe: the report still finds it.
        let piped =
            run("sh -c 'echo \"warning: w\" >&2; echo \"not supported yet: X\" >&2; exit 1' 2>&1 | cat");
        assert_eq!(piped.first_failure().unwrap().1, "not supported yet: X");
        let slow = Runner {
            tools: BTreeMap::new(),
            env: Vec::new(),
            cwd: cwd.clone(),
            timeout: Duration::from_millis(200),
        };
        let timed = slow.run(&parse_script("sleep 5 | cat").unwrap());
        assert!(timed.timed_out && !timed.ok);
        let _ = std::fs::remove_dir_all(&cwd);
    }
}
