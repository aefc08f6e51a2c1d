//! Helpers the corpus harnesses share: file discovery, path display, floor files.

use anyhow::{bail, Context, Result};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Every file under `dir` (recursively) whose extension is `ext`, in sorted path order.
pub fn files_with_extension(dir: &Path, ext: &str) -> Result<Vec<PathBuf>> {
    fn walk(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) -> Result<()> {
        let mut entries =
            std::fs::read_dir(dir)?.map(|e| e.map(|e| e.path())).collect::<Result<Vec<_>, _>>()?;
        entries.sort();
        for path in entries {
            if path.is_dir() {
                walk(&path, ext, out)?;
            } else if path.extension().is_some_and(|e| e == ext) {
                out.push(path);
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(dir, ext, &mut out)?;
    Ok(out)
}

/// `path` relative to the corpus root, for reports.
pub fn display_path(corpus: &Path, path: &Path) -> String {
    path.strip_prefix(corpus).unwrap_or(path).display().to_string()
}

/// A floor file: `name count` lines, `#` comments. `line_format` names the two
/// fields in the error for a malformed line.
pub fn read_floor(path: &Path, line_format: &str) -> Result<BTreeMap<String, usize>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let mut floor = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut parts = line.split_whitespace();
        let (Some(name), Some(count), None) = (parts.next(), parts.next(), parts.next()) else {
            bail!("{}:{}: expected `{line_format}`", path.display(), n + 1);
        };
        let count = count.parse().with_context(|| format!("{}:{}: bad count", path.display(), n + 1))?;
        floor.insert(name.to_string(), count);
    }
    Ok(floor)
}

/// Removes a scratch directory however the run ends (harnesses hold one as a guard).
pub struct ScratchDir(pub PathBuf);

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
