//! `--split-input-file`: cutting a buffer into chunks as MLIR's `splitAndProcessBuffer`
//! does, each chunk keeping the whole buffer's line and column numbers. Shared by the
//! `spirvkit opt` and `spirvkit translate` drivers.

use crate::diag::LineIndex;
use std::ops::Range;

/// MLIR's default split marker (`kDefaultSplitMarker`).
pub const DEFAULT_SPLIT_MARKER: &str = "// -----";

/// MLIR's `splitAndProcessBuffer` cutting: the chunks' byte ranges, and the offsets
/// of near misses (a `// ---` not completing a marker).
pub fn split_chunks(source: &str, marker: &str) -> (Vec<Range<usize>>, Vec<usize>) {
    const CHECK_LEN: usize = 2;
    let mut chunks = Vec::new();
    let mut near_misses = Vec::new();
    if marker.len() <= CHECK_LEN || !marker.is_char_boundary(marker.len() - CHECK_LEN) {
        // Too short for MLIR's near-miss scheme: plain cuts.
        let mut start = 0;
        for (at, _) in source.match_indices(marker) {
            chunks.push(start..at);
            start = at + marker.len();
        }
        chunks.push(start..source.len());
        chunks.retain(|r| !r.is_empty());
        return (chunks, near_misses);
    }
    let (cut, tail) = marker.split_at(marker.len() - CHECK_LEN);
    let mut pieces = Vec::new();
    let mut start = 0;
    for (at, _) in source.match_indices(cut) {
        pieces.push(start..at);
        start = at + cut.len();
    }
    pieces.push(start..source.len());

    let mut prev: Range<usize> = 0..0;
    for piece in pieces {
        if prev.is_empty() {
            prev = piece;
            continue;
        }
        let text = &source[piece.clone()];
        if text.starts_with(tail) && text.len() > CHECK_LEN && text.as_bytes()[CHECK_LEN] != b'0' {
            chunks.push(prev);
            prev = piece.start + CHECK_LEN..piece.end;
        } else {
            near_misses.push(piece.start);
            prev = prev.start..piece.end;
        }
    }
    if !prev.is_empty() {
        chunks.push(prev);
    }
    (chunks, near_misses)
}

/// A chunk of `source`, padded with newlines and blanks so that its lines and columns
/// are the whole buffer's, and the padding's length (an offset `o` into the padded
/// text is `chunk.start + o - pad` in `source`).
pub fn padded_chunk<'s>(
    source: &'s str,
    index: &std::cell::OnceCell<LineIndex>,
    chunk: Range<usize>,
) -> (std::borrow::Cow<'s, str>, usize) {
    let (line, column) = if chunk.start == 0 {
        (1, 1)
    } else {
        index.get_or_init(|| LineIndex::new(source)).line_col(chunk.start)
    };
    let pad = (line - 1) as usize + (column - 1) as usize;
    if pad == 0 {
        return (source[chunk].into(), 0);
    }
    let mut text = String::with_capacity(pad + chunk.len());
    text.extend(std::iter::repeat_n('\n', (line - 1) as usize));
    text.extend(std::iter::repeat_n(' ', (column - 1) as usize));
    text.push_str(&source[chunk]);
    (text.into(), pad)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(source: &str) -> (Vec<&str>, Vec<usize>) {
        let (chunks, near) = split_chunks(source, DEFAULT_SPLIT_MARKER);
        (chunks.into_iter().map(|r| &source[r]).collect(), near)
    }

    #[test]
    fn split_on_marker_lines() {
        let (chunks, near) = texts("a\n// -----\nb\n// -----   \nc\n");
        assert_eq!(chunks, ["a\n", "\nb\n", "   \nc\n"]);
        assert!(near.is_empty());
    }

    #[test]
    fn split_like_mlir_on_odd_markers() {
        // Anywhere on a line, as mlir-opt-22 does.
        let (chunks, _) = texts("a } // ----- x\nb");
        assert_eq!(chunks, ["a } ", " x\nb"]);
        // Six dashes cut after five.
        let (chunks, _) = texts("a\n// ------\nb");
        assert_eq!(chunks, ["a\n", "-\nb"]);
        // Near misses stay in the chunk.
        let src = "a\n// -----0\nb\n// ---x\nc\n// ---\n";
        let (chunks, near) = texts(src);
        assert_eq!(chunks, [src]);
        assert_eq!(near, [8, 20, 30]);
        // Empty chunks are dropped; a leading marker leaves its `--` in the first one.
        assert_eq!(texts("// -----\n// -----\n").0, ["--\n", "\n"]);
        assert!(texts("").0.is_empty());
    }
}
