//! Bad input echoed back in error messages: cut to a readable length, with invisible
//! characters (a byte-order mark, control characters) made visible, and numbers in a
//! form that stays short (1e300, not three hundred digits).

/// Longest value a message echoes, characters.
pub const MAX_ECHO_CHARS: usize = 60;

/// `text` as a message shows it: invisible characters escaped (`\u{feff}`, `\r`), and
/// cut once `MAX_ECHO_CHARS` characters are shown (escapes counted as shown), with the
/// full length stated.
pub fn shown(text: &str) -> String {
    let total = text.chars().count();
    let mut out = String::new();
    let (mut out_chars, mut taken) = (0, 0);
    for c in text.chars() {
        let piece: String = if is_invisible(c) {
            c.escape_default().collect()
        } else {
            c.to_string()
        };
        let n = piece.chars().count();
        if out_chars + n > MAX_ECHO_CHARS {
            break;
        }
        out.push_str(&piece);
        out_chars += n;
        taken += 1;
    }
    if taken < total {
        out.push_str(&format!("... ({total} characters)"));
    }
    out
}

/// Characters a terminal would not show: controls, format characters such as the
/// byte-order mark and zero-width spaces, and other non-printing ones.
fn is_invisible(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{feff}' | '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}' | '\u{2060}'..='\u{2064}'
        )
}

/// A number as a message shows it: as written when short (`3`, `0.25`), else in
/// exponent form (`1e20`, `1.2345678901234568e-7`).
pub fn number(x: f64) -> String {
    let plain = format!("{x}");
    if plain.len() <= 20 {
        plain
    } else {
        format!("{x:?}")
    }
}

/// `text` with every line longer than `max_chars` shortened (for messages built by
/// others, such as the flag parser's, which may echo a huge argument): the longest word
/// keeps its first and last few characters, then the line keeps its two ends.
pub fn cut_long_lines(text: &str, max_chars: usize) -> String {
    let lines: Vec<String> = text
        .split('\n')
        .map(|line| cut_line(&cut_longest_word(line, max_chars), max_chars))
        .collect();
    lines.join("\n")
}

fn cut_longest_word(line: &str, max_chars: usize) -> String {
    let chars: Vec<char> = line.chars().collect();
    if chars.len() <= max_chars {
        return line.to_string();
    }
    let (mut best, mut start) = ((0, 0), 0);
    for (i, c) in chars.iter().chain(std::iter::once(&' ')).enumerate() {
        if c.is_whitespace() {
            if i - start > best.1 - best.0 {
                best = (start, i);
            }
            start = i + 1;
        }
    }
    let (from, to) = best;
    let (head, tail) = (MAX_ECHO_CHARS, 12);
    if to - from <= head + tail + 40 {
        return line.to_string();
    }
    let kept: String = chars[..from + head].iter().collect();
    let rest: String = chars[to - tail..].iter().collect();
    format!(
        "{kept}...[{} characters cut]...{rest}",
        to - from - head - tail
    )
}

fn cut_line(line: &str, max_chars: usize) -> String {
    let count = line.chars().count();
    if count <= max_chars {
        return line.to_string();
    }
    let keep = max_chars / 2;
    let head: String = line.chars().take(keep).collect();
    let tail: String = line.chars().skip(count - keep / 2).collect();
    format!(
        "{head}...[{} characters cut]...{tail}",
        count - keep - keep / 2
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_values_are_cut_and_invisible_characters_shown() {
        assert_eq!(shown("abc"), "abc");
        let long = "9".repeat(300);
        let s = shown(&long);
        assert!(s.starts_with(&"9".repeat(60)) && s.ends_with("... (300 characters)"));
        assert_eq!(shown("\u{feff}12"), "\\u{feff}12");
        assert_eq!(shown("a\rb"), "a\\rb");
        // Escapes count as shown: 100 NULs show as 12 escapes (60 characters) and the length.
        let nuls = shown(&"\0".repeat(100));
        assert_eq!(nuls, format!("{}... (100 characters)", "\\u{0}".repeat(12)));
    }

    #[test]
    fn numbers_stay_short() {
        assert_eq!(number(3.0), "3");
        assert_eq!(number(0.25), "0.25");
        assert_eq!(number(1e20), "1e20");
        assert_eq!(number(1e300), "1e300");
        assert_eq!(number(-1e-300), "-1e-300");
    }

    #[test]
    fn long_lines_are_cut_in_the_middle() {
        let text = format!(
            "error: invalid value '{}' for '--x'\nshort",
            "v".repeat(100_000)
        );
        let cut = cut_long_lines(&text, 200);
        let first = cut.lines().next().unwrap();
        assert!(first.starts_with("error: invalid value 'vvv"), "{first}");
        assert!(first.ends_with("' for '--x'"), "{first}");
        assert!(
            first.contains("characters cut") && first.len() < 260,
            "{first}"
        );
        assert!(cut.ends_with("\nshort"));
    }
}
