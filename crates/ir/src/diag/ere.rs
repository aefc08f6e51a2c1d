//! A small POSIX extended regular expression matcher, enough for MLIR's
//! `expected-*-re` diagnostics, which use `llvm::Regex` (Henry Spencer's ERE engine,
//! no flags: `.` matches any character, `^`/`$` anchor at the string's ends).
//!
//! Only "does it match anywhere" is needed, so a backtracking search gives the same
//! answer as POSIX leftmost-longest. Supported: literals, `\c` escapes, `.`, bracket
//! expressions (ranges, negation, `[:class:]`), `^`, `$`, groups, `|`, `*`, `+`, `?`,
//! `{m}`, `{m,}`, `{m,n}`. Error texts are `regerror`'s.

#[derive(Clone, Debug)]
enum Node {
    Char(char),
    Any,
    Class { items: Vec<ClassItem>, negated: bool },
    Bol,
    Eol,
    Group(Box<Node>),
    Alt(Vec<Node>),
    Concat(Vec<Node>),
    Repeat { node: Box<Node>, min: u32, max: Option<u32> },
}

#[derive(Clone, Debug)]
enum ClassItem {
    Range(char, char),
    Named(fn(char) -> bool),
}

/// A compiled expression.
#[derive(Clone, Debug)]
pub struct Regex {
    node: Node,
}

/// `RE_DUP_MAX`.
const DUP_MAX: u32 = 255;

impl Regex {
    /// Compiles `pattern`; the error is `llvm::Regex::isValid`'s message.
    pub fn new(pattern: &str) -> Result<Regex, String> {
        let chars: Vec<char> = pattern.chars().collect();
        let mut p = Compiler { s: &chars, i: 0, depth: 0 };
        let node = p.alternation()?;
        if p.i < chars.len() {
            // Only a stray `)` stops the top-level alternation early.
            return Err("parentheses not balanced".into());
        }
        Ok(Regex { node })
    }

    /// Whether the expression matches anywhere in `text`.
    pub fn is_match(&self, text: &str) -> bool {
        let chars: Vec<char> = text.chars().collect();
        (0..=chars.len()).any(|start| matches(&self.node, &chars, start, &mut |_| true))
    }

    /// `llvm::Regex::escape`: backslashes before ERE metacharacters.
    pub fn escape(text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        for c in text.chars() {
            if "()^$|*+?.[]\\{}".contains(c) {
                out.push('\\');
            }
            out.push(c);
        }
        out
    }
}

struct Compiler<'a> {
    s: &'a [char],
    i: usize,
    depth: usize,
}

impl Compiler<'_> {
    fn peek(&self) -> Option<char> {
        self.s.get(self.i).copied()
    }

    fn alternation(&mut self) -> Result<Node, String> {
        let mut branches = vec![self.branch()?];
        while self.peek() == Some('|') {
            self.i += 1;
            branches.push(self.branch()?);
        }
        Ok(if branches.len() == 1 { branches.pop().unwrap() } else { Node::Alt(branches) })
    }

    fn branch(&mut self) -> Result<Node, String> {
        let mut items = Vec::new();
        loop {
            match self.peek() {
                None | Some('|') => break,
                Some(')') if self.depth > 0 => break,
                _ => {}
            }
            let atom = self.atom()?;
            let atom = self.quantifiers(atom)?;
            items.push(atom);
        }
        if items.is_empty() {
            return Err("empty (sub)expression".into());
        }
        Ok(if items.len() == 1 { items.pop().unwrap() } else { Node::Concat(items) })
    }

    fn atom(&mut self) -> Result<Node, String> {
        let c = self.peek().expect("caller checked");
        self.i += 1;
        Ok(match c {
            '(' => {
                self.depth += 1;
                let inner =
                    if self.peek() == Some(')') { Node::Concat(Vec::new()) } else { self.alternation()? };
                if self.peek() != Some(')') {
                    return Err("parentheses not balanced".into());
                }
                self.i += 1;
                self.depth -= 1;
                Node::Group(Box::new(inner))
            }
            ')' => return Err("parentheses not balanced".into()),
            '*' | '+' | '?' => return Err("repetition-operator operand invalid".into()),
            '{' if self.peek().is_some_and(|d| d.is_ascii_digit()) => {
                return Err("repetition-operator operand invalid".into())
            }
            '.' => Node::Any,
            '^' => Node::Bol,
            '$' => Node::Eol,
            '[' => self.bracket()?,
            '\\' => {
                let Some(e) = self.peek() else { return Err("trailing backslash (\\)".into()) };
                self.i += 1;
                Node::Char(e)
            }
            c => Node::Char(c),
        })
    }

    fn quantifiers(&mut self, mut atom: Node) -> Result<Node, String> {
        loop {
            let (min, max) = match self.peek() {
                Some('*') => (0, None),
                Some('+') => (1, None),
                Some('?') => (0, Some(1)),
                Some('{') if self.s.get(self.i + 1).is_some_and(|d| d.is_ascii_digit()) => {
                    self.i += 1;
                    let min = self.number()?;
                    let max = if self.peek() == Some(',') {
                        self.i += 1;
                        if self.peek().is_some_and(|d| d.is_ascii_digit()) {
                            Some(self.number()?)
                        } else {
                            None
                        }
                    } else {
                        Some(min)
                    };
                    if self.peek() != Some('}') {
                        return Err(if self.i >= self.s.len() {
                            "braces not balanced".into()
                        } else {
                            "invalid repetition count(s)".into()
                        });
                    }
                    if max.is_some_and(|m| m < min) {
                        return Err("invalid repetition count(s)".into());
                    }
                    (min, max)
                }
                _ => return Ok(atom),
            };
            self.i += 1;
            if matches!(atom, Node::Bol) {
                return Err("repetition-operator operand invalid".into());
            }
            atom = Node::Repeat { node: Box::new(atom), min, max };
        }
    }

    fn number(&mut self) -> Result<u32, String> {
        let mut n: u32 = 0;
        while let Some(d) = self.peek().and_then(|c| c.to_digit(10)) {
            n = n.saturating_mul(10).saturating_add(d);
            self.i += 1;
        }
        if n > DUP_MAX {
            return Err("invalid repetition count(s)".into());
        }
        Ok(n)
    }

    fn bracket(&mut self) -> Result<Node, String> {
        let unbalanced = || "brackets ([ ]) not balanced".to_string();
        let negated = self.peek() == Some('^');
        if negated {
            self.i += 1;
        }
        let mut items = Vec::new();
        let mut first = true;
        loop {
            let c = self.peek().ok_or_else(unbalanced)?;
            if c == ']' && !first {
                self.i += 1;
                break;
            }
            first = false;
            if c == '[' && self.s.get(self.i + 1) == Some(&':') {
                let start = self.i + 2;
                let end = (start..self.s.len().saturating_sub(1))
                    .find(|&j| self.s[j] == ':' && self.s[j + 1] == ']')
                    .ok_or_else(unbalanced)?;
                let name: String = self.s[start..end].iter().collect();
                items.push(ClassItem::Named(named_class(&name).ok_or("invalid character class")?));
                self.i = end + 2;
                continue;
            }
            if c == '[' && matches!(self.s.get(self.i + 1), Some('.') | Some('=')) {
                // `[.x.]` / `[=x=]`: a single collating element.
                let delim = self.s[self.i + 1];
                let start = self.i + 2;
                let end = (start..self.s.len().saturating_sub(1))
                    .find(|&j| self.s[j] == delim && self.s[j + 1] == ']')
                    .ok_or_else(unbalanced)?;
                if end != start + 1 {
                    return Err("invalid collating element".into());
                }
                let e = self.s[start];
                items.push(ClassItem::Range(e, e));
                self.i = end + 2;
                continue;
            }
            self.i += 1;
            if self.peek() == Some('-') && self.s.get(self.i + 1).is_some_and(|&n| n != ']') {
                let hi = self.s[self.i + 1];
                self.i += 2;
                if hi < c {
                    return Err("invalid character range".into());
                }
                items.push(ClassItem::Range(c, hi));
            } else {
                items.push(ClassItem::Range(c, c));
            }
        }
        Ok(Node::Class { items, negated })
    }
}

fn named_class(name: &str) -> Option<fn(char) -> bool> {
    Some(match name {
        "alnum" => |c: char| c.is_ascii_alphanumeric(),
        "alpha" => |c: char| c.is_ascii_alphabetic(),
        "blank" => |c: char| c == ' ' || c == '\t',
        "cntrl" => |c: char| c.is_ascii_control(),
        "digit" => |c: char| c.is_ascii_digit(),
        "graph" => |c: char| c.is_ascii_graphic(),
        "lower" => |c: char| c.is_ascii_lowercase(),
        "print" => |c: char| c.is_ascii_graphic() || c == ' ',
        "punct" => |c: char| c.is_ascii_punctuation(),
        "space" => |c: char| c.is_ascii_whitespace() || c == '\x0b',
        "upper" => |c: char| c.is_ascii_uppercase(),
        "xdigit" => |c: char| c.is_ascii_hexdigit(),
        _ => return None,
    })
}

/// Matches `node` at `i`, calling `k` with each possible end until it returns true.
fn matches(node: &Node, s: &[char], i: usize, k: &mut dyn FnMut(usize) -> bool) -> bool {
    match node {
        Node::Char(c) => s.get(i) == Some(c) && k(i + 1),
        Node::Any => i < s.len() && k(i + 1),
        Node::Class { items, negated } => {
            let Some(&c) = s.get(i) else { return false };
            let hit = items.iter().any(|item| match item {
                ClassItem::Range(lo, hi) => (*lo..=*hi).contains(&c),
                ClassItem::Named(f) => f(c),
            });
            hit != *negated && k(i + 1)
        }
        Node::Bol => i == 0 && k(i),
        Node::Eol => i == s.len() && k(i),
        Node::Group(inner) => matches(inner, s, i, k),
        Node::Alt(branches) => branches.iter().any(|b| matches(b, s, i, k)),
        Node::Concat(items) => concat(items, s, i, k),
        Node::Repeat { node, min, max } => repeat(node, *min, *max, 0, s, i, k),
    }
}

fn concat(items: &[Node], s: &[char], i: usize, k: &mut dyn FnMut(usize) -> bool) -> bool {
    match items.split_first() {
        None => k(i),
        Some((first, rest)) => matches(first, s, i, &mut |j| concat(rest, s, j, k)),
    }
}

fn repeat(
    node: &Node,
    min: u32,
    max: Option<u32>,
    count: u32,
    s: &[char],
    i: usize,
    k: &mut dyn FnMut(usize) -> bool,
) -> bool {
    if max.is_none_or(|m| count < m)
        && matches(node, s, i, &mut |j| {
            // An iteration that consumed nothing cannot help once `min` is reached.
            if j == i && count >= min {
                return false;
            }
            repeat(node, min, max, count + 1, s, j, k)
        })
    {
        return true;
    }
    count >= min && k(i)
}

#[cfg(test)]
mod tests {
    use super::Regex;

    fn m(re: &str, text: &str) -> bool {
        Regex::new(re).unwrap().is_match(text)
    }

    #[test]
    fn basics() {
        assert!(m("abc", "xxabcxx"));
        assert!(!m("abd", "xxabcxx"));
        assert!(m("^ab", "abc"));
        assert!(!m("^bc", "abc"));
        assert!(m("bc$", "abc"));
        assert!(m("a.c", "abc"));
        assert!(m("a(b|x)c", "axc"));
        assert!(m("ab*c", "ac"));
        assert!(m("ab+c", "abbbc"));
        assert!(!m("ab+c", "ac"));
        assert!(m("ab?c", "abc"));
        assert!(m("^a{2,3}$", "aaa"));
        assert!(!m("^a{2,3}$", "aaaa"));
        assert!(m("^a{2}$", "aa"));
        assert!(m("^a{2,}$", "aaaaa"));
        assert!(m("[a-c]+x", "zzbcax"));
        assert!(m("[^a-c]", "abcd"));
        assert!(!m("^[^a-c]+$", "abcd"));
        assert!(m("[[:digit:]]+", "x12"));
        assert!(m("[]]", "]"));
        assert!(m("\\.\\*", "a.*"));
        assert!(m("(a*)*b", "aaab"));
        assert!(!m("^(a*)*$", "aab"));
        assert!(m("a()b", "ab"));
        assert!(Regex::new("").is_err());
    }

    #[test]
    fn mlir_style_pattern() {
        let re = format!(
            "{}({}){}",
            Regex::escape("address space mapping for client '"),
            ".*",
            Regex::escape("' not implemented")
        );
        assert!(m(&re, "address space mapping for client 'x.y' not implemented"));
        assert!(!m(&re, "address space mapping for client 'x.y' implemented"));
        assert_eq!(Regex::escape("a.b{c}"), "a\\.b\\{c\\}");
    }

    #[test]
    fn errors() {
        assert_eq!(Regex::new("[a-z").unwrap_err(), "brackets ([ ]) not balanced");
        assert_eq!(Regex::new("(ab").unwrap_err(), "parentheses not balanced");
        assert_eq!(Regex::new("ab)").unwrap_err(), "parentheses not balanced");
        assert_eq!(Regex::new("*a").unwrap_err(), "repetition-operator operand invalid");
        assert_eq!(Regex::new("a{3,2}").unwrap_err(), "invalid repetition count(s)");
        assert_eq!(Regex::new("[z-a]").unwrap_err(), "invalid character range");
    }
}
