//! The one hex codec of the workspace: bytes → lowercase hex text, and hex text → bytes with
//! an error that names the offending character. Written by hand (a dozen lines) because the
//! input rules (`_` and whitespace separators, a `0x` prefix per group) are tpb's own.

use thiserror::Error;

/// Lowercase hex of `bytes`, `sep` between bytes (`""` for none).
pub fn encode_with(bytes: &[u8], sep: &str) -> String {
    let mut s = String::with_capacity(bytes.len() * (2 + sep.len()));
    for (i, b) in bytes.iter().enumerate() {
        if i > 0 {
            s.push_str(sep);
        }
        s.push(char::from(DIGITS[usize::from(b >> 4)]));
        s.push(char::from(DIGITS[usize::from(b & 0xF)]));
    }
    s
}

/// Lowercase hex of `bytes`, no separators.
pub fn encode(bytes: &[u8]) -> String {
    encode_with(bytes, "")
}

const DIGITS: &[u8; 16] = b"0123456789abcdef";

/// Why hex text did not decode.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum HexError {
    /// A character that is not a hex digit, separator or group prefix.
    #[error("`{ch}` at position {position} is not a hex digit")]
    NotADigit {
        /// The character.
        ch: char,
        /// Its 1-based position (in characters).
        position: usize,
    },
    /// No digits at all.
    #[error("no hex digits given")]
    Empty,
    /// An odd number of digits.
    #[error("{0} hex digits is not a whole number of bytes")]
    OddLength(usize),
}

/// Decodes hex text: whitespace and `_` are ignored, and each whitespace-separated group may
/// start with `0x`/`0X`.
///
/// ```
/// assert_eq!(tpb_isa::hex::decode("0x0a_Bc 01").unwrap(), [0x0a, 0xbc, 0x01]);
/// assert!(tpb_isa::hex::decode("0g").is_err());
/// assert_eq!(tpb_isa::hex::encode(&[0x0a, 0xbc]), "0abc");
/// ```
pub fn decode(s: &str) -> Result<Vec<u8>, HexError> {
    let mut digits = Vec::new();
    let mut group_start = true;
    let mut chars = s.chars().enumerate().peekable();
    while let Some((pos, c)) = chars.next() {
        if c.is_whitespace() {
            group_start = true;
            continue;
        }
        if group_start && c == '0' && matches!(chars.peek(), Some((_, 'x' | 'X'))) {
            chars.next();
            group_start = false;
            continue;
        }
        group_start = false;
        match c.to_digit(16) {
            Some(d) => digits.push(d as u8),
            None if c == '_' => {}
            None => {
                return Err(HexError::NotADigit {
                    ch: c,
                    position: pos + 1,
                })
            }
        }
    }
    if digits.is_empty() {
        return Err(HexError::Empty);
    }
    if !digits.len().is_multiple_of(2) {
        return Err(HexError::OddLength(digits.len()));
    }
    Ok(digits.chunks_exact(2).map(|p| (p[0] << 4) | p[1]).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_names_errors() {
        let all: Vec<u8> = (0..=255).collect();
        assert_eq!(decode(&encode(&all)).unwrap(), all);
        assert_eq!(encode_with(&[1, 0xff], " "), "01 ff");
        assert_eq!(
            decode("0x0a_Bc 0X01\n ff").unwrap(),
            [0x0a, 0xbc, 0x01, 0xff]
        );
        assert_eq!(
            decode("00 0g"),
            Err(HexError::NotADigit {
                ch: 'g',
                position: 5
            })
        );
        assert_eq!(decode("abc"), Err(HexError::OddLength(3)));
        assert_eq!(decode(" _ "), Err(HexError::Empty));
        assert!(decode("a0x1").is_err(), "0x only as a group prefix");
    }
}
