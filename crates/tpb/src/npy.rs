//! `.npy` file I/O for the command-line tool.
//!
//! Arrays are held as raw little-endian element bytes in C (row-major) order, typed by the
//! ISA's [`Dtype`]. Nothing here interprets element values; bits go in and come out unchanged.
//!
//! # Why a hand-written parser
//!
//! The `.npy` format (header versions 1.0, 2.0 and 3.0) is a magic string, a length and a
//! tiny Python dict literal with three keys. Parsing that takes about a hundred lines, while
//! the available crates either pull in `ndarray` or cannot express the cases we need: the
//! `ml_dtypes` raw blobs (`<V2`, `<V1`), numpy's unloadable `<f1`, and reinterpreting a
//! bit-view array as bfloat16/fp8 from a command-line hint. Owning the parser also lets us
//! guarantee that no input, however malformed, panics.
//!
//! # What numpy and `ml_dtypes` write (guide B.3)
//!
//! | array dtype | header `descr` | read as |
//! |---|---|---|
//! | `bool` | `\|b1` | [`Dtype::UINT8`] (0 or 1) |
//! | `uint8`, `int8` | `\|u1`, `\|i1` | `UINT8`, `INT8` |
//! | `uint16`, `int16`, `float16` | `<u2`, `<i2`, `<f2` | `UINT16`, `INT16`, `FP16` |
//! | `uint32`, `int32`, `float32` | `<u4`, `<i4`, `<f4` | `UINT32`, `INT32`, `FP32` |
//! | `uint64`, `int64` | `<u8`, `<i8` | `UINT64`, `INT64` |
//! | `ml_dtypes.bfloat16` | `<V2` | needs a hint (`--dtype bfloat16`) |
//! | `ml_dtypes.float8_e4m3`, `float8_e3m4` | `<V1` | needs a hint (`--dtype fp8_exp4`, …) |
//! | `ml_dtypes.float8_e5m2` | `<f1` | `FP8_EXP5` unless the hint names another 1-byte type |
//! | `x.view(np.uint16)` / `x.view(np.uint8)` | `<u2` / `\|u1` | the hint, if it has the same size |
//!
//! Big-endian (`>`) files are byte-swapped to little-endian and `fortran_order: True` files
//! are transposed to C order on read. `float64`, complex, object, string, datetime and
//! structured arrays are refused.
//!
//! When writing, [`NpyStyle::BitView`] (the default) stores bfloat16 and fp8 as `<u2` /
//! `|u1` bit views, which every numpy can load (`np.load(f).view(ml_dtypes.bfloat16)`);
//! [`NpyStyle::MlDtypes`] stores them as the raw `<V2` / `|V1` blobs that `ml_dtypes`
//! itself writes. Either way the element type must be passed back as a hint when reading.

use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

use tpb_isa::Dtype;

/// The 6-byte magic string that starts every `.npy` file.
const MAGIC: &[u8; 6] = b"\x93NUMPY";
/// numpy aligns the start of the data to this many bytes.
const ARRAY_ALIGN: usize = 64;
/// numpy leaves room in the header for the growth axis to reach this many digits.
const GROWTH_AXIS_MAX_DIGITS: usize = 21;
/// Nesting limit for the header literal, so hostile input cannot exhaust the stack.
const MAX_DEPTH: usize = 32;
/// The longest header read (numpy writes a few hundred bytes; 64 dimensions of 20 digits
/// take under 2 KiB), so a hostile length cannot make the reader allocate gigabytes.
pub const MAX_HEADER_BYTES: usize = 1 << 16;
/// The most dimensions an array may have: numpy's own limit (`NPY_MAXDIMS`), on the way in
/// and out, so that every file tpb writes loads in numpy.
pub const MAX_DIMS: usize = 64;

/// An n-dimensional array read from, or to be written to, a `.npy` file.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct NpyArray {
    /// Element type.
    pub dtype: Dtype,
    /// Dimensions, outermost first; empty for a 0-d (scalar) array.
    pub shape: Vec<usize>,
    /// Raw little-endian element bytes in C (row-major) order.
    pub data: Vec<u8>,
}

impl NpyArray {
    /// Builds an array, checking that `dtype` has a whole-byte size and that `data` holds
    /// exactly `product(shape)` elements of it.
    pub fn new(dtype: Dtype, shape: Vec<usize>, data: Vec<u8>) -> Result<Self, NpyError> {
        let arr = NpyArray { dtype, shape, data };
        arr.check()?;
        Ok(arr)
    }

    /// Number of elements (`1` for a 0-d array), or `None` if the product overflows.
    pub fn element_count(&self) -> Option<usize> {
        element_count(&self.shape)
    }

    /// Checks the invariants [`NpyArray::new`] establishes.
    pub fn check(&self) -> Result<(), NpyError> {
        let size = self.dtype.size().ok_or(NpyError::NoByteSize(self.dtype))?;
        if self.shape.len() > MAX_DIMS {
            return Err(NpyError::TooManyDims(self.shape.len()));
        }
        let need = needed_bytes(&self.shape, size)
            .ok_or_else(|| NpyError::ShapeTooLarge(ShapeFmt(&self.shape).to_string()))?;
        if need != self.data.len() {
            return Err(NpyError::DataLength {
                have: self.data.len(),
                shape: ShapeFmt(&self.shape).to_string(),
                dtype: self.dtype,
                need,
            });
        }
        Ok(())
    }
}

/// How [`write_npy`] stores types numpy has no native dtype for (bfloat16, the fp8 types).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum NpyStyle {
    /// Unsigned-integer bit views (`<u2` for bfloat16, `|u1` for fp8) that any numpy
    /// loads; view them as the real type with `ml_dtypes`. The default.
    #[default]
    BitView,
    /// Raw blobs like `ml_dtypes` writes: `<V2` for bfloat16, `|V1` for fp8. (`ml_dtypes`
    /// writes `<f1` for float8_e5m2, which numpy cannot load, so `|V1` is used for it too.)
    MlDtypes,
}

/// Everything that can go wrong reading or writing a `.npy` file.
#[derive(Debug, thiserror::Error)]
pub enum NpyError {
    /// Reading or writing the file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The input does not start with `\x93NUMPY`.
    #[error("bad .npy magic (not a .npy file)")]
    BadMagic,
    /// The input ends inside the preamble or header.
    #[error("truncated .npy file: {0}")]
    Truncated(String),
    /// A format version other than 1.0, 2.0 or 3.0.
    #[error("unsupported .npy format version {0}.{1} (only 1.0, 2.0 and 3.0 exist)")]
    UnsupportedVersion(u8, u8),
    /// The header is not the expected Python dict literal.
    #[error("malformed .npy header: {0}")]
    BadHeader(String),
    /// A `descr` this tool has no element type for.
    #[error("unsupported descr '{descr}' ({why})")]
    UnsupportedDescr {
        /// The descr as written in the header.
        descr: String,
        /// What kind of data it is.
        why: &'static str,
    },
    /// A raw `V` blob, whose element type only a hint can supply.
    #[error(
        "descr '{descr}' is a raw {size}-byte blob: give the element type (e.g. --dtype {example})"
    )]
    NeedsHint {
        /// The descr as written in the header.
        descr: String,
        /// Bytes per element.
        size: usize,
        /// A plausible type of that size.
        example: &'static str,
    },
    /// The hint's element size differs from the file's.
    #[error("descr '{descr}' is {size} bytes but --dtype {hint} is {hint_size} bytes")]
    HintSize {
        /// The descr as written in the header.
        descr: String,
        /// Bytes per element in the file.
        size: usize,
        /// The hinted type.
        hint: Dtype,
        /// Bytes per element of the hinted type.
        hint_size: usize,
    },
    /// The type is sub-byte, packed or unknown, so it has no `.npy` element.
    #[error("{0} has no whole-byte element size, so it cannot live in a .npy file")]
    NoByteSize(Dtype),
    /// More dimensions than numpy allows ([`MAX_DIMS`]).
    #[error("the shape has {0} dimensions; numpy allows at most 64")]
    TooManyDims(usize),
    /// A header longer than [`MAX_HEADER_BYTES`].
    #[error("the header says it is {0} bytes long; tpb reads headers of at most 65536 bytes")]
    HeaderTooLong(usize),
    /// More data follows than the shape needs (a stream whose length is not known).
    #[error("file holds more than the {need} bytes of data that shape {shape} of {dtype} needs")]
    ExtraData {
        /// The shape, formatted like a Python tuple.
        shape: String,
        /// The element type.
        dtype: Dtype,
        /// Bytes required.
        need: usize,
    },
    /// The number of elements overflows.
    #[error("shape {0} is too large")]
    ShapeTooLarge(String),
    /// The data length is not what the shape and type need.
    #[error("file holds {have} bytes of data but shape {shape} of {dtype} needs {need}")]
    DataLength {
        /// Bytes present.
        have: usize,
        /// The shape, formatted like a Python tuple.
        shape: String,
        /// The element type.
        dtype: Dtype,
        /// Bytes required.
        need: usize,
    },
}

/// Parses `.npy` bytes.
///
/// `hint` is the element type from a CLI flag where the file cannot say it: it is required
/// for raw `V` blobs, and for any other descr it reinterprets the bits as long as the sizes
/// match (e.g. `<u2` + bfloat16). Never panics, whatever the input.
pub fn read_npy(bytes: &[u8], hint: Option<Dtype>) -> Result<NpyArray, NpyError> {
    let mut r = std::io::Cursor::new(bytes);
    let header = read_header(&mut r)?;
    let left = (bytes.len() - header.len) as u64;
    read_data(&mut r, &header, hint, Some(left))
}

/// Reads and parses a `.npy` file (see [`read_npy`]); I/O errors name the path. The file's
/// length is checked against its header before the data is read.
pub fn read_npy_file(path: &Path, hint: Option<Dtype>) -> Result<NpyArray, NpyError> {
    let io = |source| NpyError::Io {
        path: path.to_path_buf(),
        source,
    };
    let f = crate::cmd::input::open_input(path).map_err(io)?;
    let len = f.metadata().map_err(io)?;
    let len = len.is_file().then_some(len.len());
    let mut r = std::io::BufReader::new(f);
    let header = read_header(&mut r)?;
    read_data(
        &mut r,
        &header,
        hint,
        len.map(|l| l.saturating_sub(header.len as u64)),
    )
}

/// What a `.npy` file says before its data: the element encoding and the shape.
#[derive(Clone)]
pub struct NpyHeader {
    descr: Value,
    fortran_order: bool,
    /// Dimensions, outermost first (at most [`MAX_DIMS`]).
    pub shape: Vec<usize>,
    /// Bytes before the data (preamble and header).
    pub len: usize,
}

impl NpyHeader {
    /// The element type, its size and byte order, with `hint` as for [`read_npy`].
    fn element(&self, hint: Option<Dtype>) -> Result<(Dtype, usize, bool), NpyError> {
        match &self.descr {
            Value::Str(s) => resolve_descr(s, hint),
            other => Err(NpyError::UnsupportedDescr {
                descr: other.to_string(),
                why: "structured array",
            }),
        }
    }

    /// The element type the file holds, read with `hint` as for [`read_npy`].
    pub fn dtype(&self, hint: Option<Dtype>) -> Result<Dtype, NpyError> {
        self.element(hint).map(|e| e.0)
    }
}

/// Reads `n` bytes, or fewer at the end of the input.
fn read_up_to(r: &mut impl Read, n: usize) -> Result<Vec<u8>, NpyError> {
    let mut buf = Vec::with_capacity(n.min(1 << 16));
    r.take(n as u64)
        .read_to_end(&mut buf)
        .map_err(|e| NpyError::Truncated(e.to_string()))?;
    Ok(buf)
}

/// Reads the preamble and the header from `r` (at most [`MAX_HEADER_BYTES`] of it),
/// leaving `r` at the first data byte. Never panics, whatever the input.
pub fn read_header(r: &mut impl Read) -> Result<NpyHeader, NpyError> {
    let pre = read_up_to(r, 8)?;
    let n = pre.len().min(MAGIC.len());
    if pre[..n] != MAGIC[..n] {
        return Err(NpyError::BadMagic);
    }
    if pre.len() < 8 {
        return Err(NpyError::Truncated(format!(
            "{} bytes, shorter than the preamble",
            pre.len()
        )));
    }
    let (major, minor) = (pre[6], pre[7]);
    let len_bytes = match (major, minor) {
        (1, 0) => 2,
        (2, 0) | (3, 0) => 4,
        _ => return Err(NpyError::UnsupportedVersion(major, minor)),
    };
    let len_field = read_up_to(r, len_bytes)?;
    if len_field.len() < len_bytes {
        return Err(NpyError::Truncated("ends inside the header length".into()));
    }
    let hlen = len_field
        .iter()
        .rev()
        .fold(0usize, |acc, &b| (acc << 8) | usize::from(b));
    if hlen > MAX_HEADER_BYTES {
        return Err(NpyError::HeaderTooLong(hlen));
    }
    let raw = read_up_to(r, hlen)?;
    if raw.len() < hlen {
        return Err(NpyError::Truncated(format!(
            "header says {hlen} bytes but only {} follow",
            raw.len()
        )));
    }
    let text = if major == 3 {
        String::from_utf8(raw)
            .map_err(|_| NpyError::BadHeader("version 3.0 header is not UTF-8".into()))?
    } else {
        // Versions 1.0 and 2.0 are latin-1: every byte is the code point of the same value.
        raw.iter().map(|&b| char::from(b)).collect()
    };
    let Header {
        descr,
        fortran_order,
        shape,
    } = parse_header(&text)?;
    Ok(NpyHeader {
        descr,
        fortran_order,
        shape,
        len: 8 + len_bytes + hlen,
    })
}

/// Reads the data `header` declares from `r`, which is just past the header. `left`, when
/// known (a regular file, bytes in memory), is how many bytes remain: a length that is not
/// the declared one is an error before anything is read. Otherwise the data is read through
/// [`Read::take`], one byte past the declared length to detect extra data. Never panics.
pub fn read_data(
    r: &mut impl Read,
    header: &NpyHeader,
    hint: Option<Dtype>,
    left: Option<u64>,
) -> Result<NpyArray, NpyError> {
    let (dtype, size, big_endian) = header.element(hint)?;
    let shape = &header.shape;
    let need = needed_bytes(shape, size)
        .ok_or_else(|| NpyError::ShapeTooLarge(ShapeFmt(shape).to_string()))?;
    let length = |have: usize| NpyError::DataLength {
        have,
        shape: ShapeFmt(shape).to_string(),
        dtype,
        need,
    };
    if let Some(left) = left.filter(|&l| l != need as u64) {
        return Err(length(usize::try_from(left).unwrap_or(usize::MAX)));
    }
    let mut data = read_up_to(r, need.saturating_add(1))?;
    if data.len() < need {
        return Err(length(data.len()));
    }
    if data.len() > need {
        return Err(NpyError::ExtraData {
            shape: ShapeFmt(shape).to_string(),
            dtype,
            need,
        });
    }
    if big_endian && size > 1 {
        data.chunks_exact_mut(size).for_each(<[u8]>::reverse);
    }
    if header.fortran_order && shape.len() > 1 {
        data = fortran_to_c(&data, shape, size);
    }
    Ok(NpyArray {
        dtype,
        shape: shape.clone(),
        data,
    })
}

/// Serialises an array exactly as `np.save` would lay it out (format 1.0: at most 64
/// dimensions always fit it), with numpy's native descr for numpy types and, for
/// bfloat16 / fp8, the encoding `style` selects. FP32R is written as `<f4`.
///
/// An inconsistent array (see [`NpyArray::check`]) is an error.
pub fn write_npy(arr: &NpyArray, style: NpyStyle) -> Result<Vec<u8>, NpyError> {
    arr.check()?;
    let descr = descr_for(arr.dtype, style).ok_or(NpyError::NoByteSize(arr.dtype))?;

    let mut dict = format!(
        "{{'descr': '{descr}', 'fortran_order': False, 'shape': {}, }}",
        ShapeFmt(&arr.shape)
    );
    if let Some(first) = arr.shape.first() {
        let digits = first.to_string().len();
        dict.extend(std::iter::repeat_n(
            ' ',
            GROWTH_AXIS_MAX_DIGITS.saturating_sub(digits),
        ));
    }
    // The header is the dict, space padding and a final newline, padded so that the data
    // starts on an ARRAY_ALIGN boundary.
    let wrap = |len_bytes: usize| {
        let hlen = dict.len() + 1;
        let pad = ARRAY_ALIGN - (MAGIC.len() + 2 + len_bytes + hlen) % ARRAY_ALIGN;
        hlen + pad
    };
    // At most MAX_DIMS dimensions (checked above) keep the header far below version 1.0's
    // 64 KiB, so every file tpb writes is version 1.0.
    let total = wrap(2);
    let total16 = u16::try_from(total)
        .map_err(|_| NpyError::ShapeTooLarge(ShapeFmt(&arr.shape).to_string()))?;
    let mut out = Vec::with_capacity(12 + total + arr.data.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[1, 0]);
    out.extend_from_slice(&total16.to_le_bytes());
    out.extend_from_slice(dict.as_bytes());
    out.resize(out.len() + total - dict.len() - 1, b' ');
    out.push(b'\n');
    out.extend_from_slice(&arr.data);
    Ok(out)
}

/// Writes an array to a `.npy` file (see [`write_npy`]); errors name the path.
pub fn write_npy_file(path: &Path, arr: &NpyArray, style: NpyStyle) -> Result<(), NpyError> {
    let bytes = write_npy(arr, style)?;
    crate::atomic::write_file(path, &bytes).map_err(|source| NpyError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// The header `descr` [`write_npy`] uses for `dtype`, or `None` if it has no byte size.
pub fn descr_for(dtype: Dtype, style: NpyStyle) -> Option<&'static str> {
    let raw = style == NpyStyle::MlDtypes;
    Some(match dtype {
        Dtype::UINT8 => "|u1",
        Dtype::INT8 => "|i1",
        Dtype::UINT16 => "<u2",
        Dtype::INT16 => "<i2",
        Dtype::FP16 => "<f2",
        Dtype::UINT32 => "<u4",
        Dtype::INT32 => "<i4",
        Dtype::FP32 | Dtype::FP32R => "<f4",
        Dtype::UINT64 => "<u8",
        Dtype::INT64 => "<i8",
        Dtype::BFLOAT16 if raw => "<V2",
        Dtype::BFLOAT16 => "<u2",
        d => match d.size()? {
            1 if raw => "|V1",
            1 => "|u1",
            2 if raw => "<V2",
            2 => "<u2",
            4 if raw => "<V4",
            4 => "<u4",
            8 if raw => "<V8",
            8 => "<u8",
            _ => return None,
        },
    })
}

// ---------------------------------------------------------------------------------------
// Reading helpers.

/// The three header fields.
struct Header {
    descr: Value,
    fortran_order: bool,
    shape: Vec<usize>,
}

fn parse_header(text: &str) -> Result<Header, NpyError> {
    let bad = NpyError::BadHeader;
    let chars: Vec<char> = text.chars().collect();
    let mut p = Parser {
        s: &chars,
        pos: 0,
        depth: 0,
    };
    let v = p.value()?;
    p.skip_ws();
    if p.pos != chars.len() {
        return Err(bad(format!("unexpected text after the dict at {}", p.pos)));
    }
    let Value::Dict(entries) = v else {
        return Err(bad(format!("header is not a dict: {v}")));
    };
    let (mut descr, mut fortran, mut shape) = (None, None, None);
    for (k, v) in entries {
        let slot = match k.as_str() {
            "descr" => &mut descr,
            "fortran_order" => &mut fortran,
            "shape" => &mut shape,
            _ => return Err(bad(format!("unexpected key '{k}'"))),
        };
        if slot.replace(v).is_some() {
            return Err(bad(format!("duplicate key '{k}'")));
        }
    }
    let missing = |k: &str| bad(format!("missing key '{k}'"));
    let descr = descr.ok_or_else(|| missing("descr"))?;
    let fortran_order = match fortran.ok_or_else(|| missing("fortran_order"))? {
        Value::Bool(b) => b,
        v => return Err(bad(format!("fortran_order is not a bool: {v}"))),
    };
    let shape = match shape.ok_or_else(|| missing("shape"))? {
        Value::Tuple(items) => items
            .iter()
            .map(|d| match d {
                Value::Int(n) => usize::try_from(*n).ok(),
                _ => None,
            })
            .collect::<Option<Vec<usize>>>()
            .ok_or_else(|| {
                bad(format!(
                    "shape is not a tuple of sizes: {}",
                    Value::Tuple(items.clone())
                ))
            })?,
        v => return Err(bad(format!("shape is not a tuple: {v}"))),
    };
    if shape.len() > MAX_DIMS {
        return Err(NpyError::TooManyDims(shape.len()));
    }
    Ok(Header {
        descr,
        fortran_order,
        shape,
    })
}

/// Maps a descr string (and the hint) to the element type, its size and whether the file
/// is big-endian.
fn resolve_descr(descr: &str, hint: Option<Dtype>) -> Result<(Dtype, usize, bool), NpyError> {
    let unsupported = |why| NpyError::UnsupportedDescr {
        descr: descr.to_owned(),
        why,
    };
    let mut chars = descr.chars();
    let (order, kind) = match chars.next() {
        Some(c @ ('<' | '>' | '|' | '=' | '!')) => (c, chars.next()),
        c => ('=', c),
    };
    let Some(kind) = kind else {
        return Err(unsupported("not a dtype descriptor"));
    };
    match kind {
        'c' => return Err(unsupported("complex")),
        'O' => return Err(unsupported("Python objects")),
        'S' | 'a' | 'U' => return Err(unsupported("strings")),
        'M' | 'm' => return Err(unsupported("datetime")),
        'b' | '?' | 'u' | 'i' | 'f' | 'V' => {}
        _ => return Err(unsupported("not a simple numeric dtype")),
    }
    let digits = chars.as_str();
    let size: usize = if digits.is_empty() {
        match kind {
            'b' | '?' => 1,
            _ => return Err(unsupported("no element size")),
        }
    } else if digits.bytes().all(|b| b.is_ascii_digit()) {
        digits
            .parse()
            .map_err(|_| unsupported("element size too large"))?
    } else {
        return Err(unsupported("not a simple numeric dtype"));
    };
    let big_endian = match order {
        '>' | '!' => true,
        '=' => cfg!(target_endian = "big"),
        _ => false,
    };

    let natural = match (kind, size) {
        ('b' | '?', 1) => Some(Dtype::UINT8),
        ('u', 1) => Some(Dtype::UINT8),
        ('i', 1) => Some(Dtype::INT8),
        ('u', 2) => Some(Dtype::UINT16),
        ('i', 2) => Some(Dtype::INT16),
        ('f', 2) => Some(Dtype::FP16),
        ('u', 4) => Some(Dtype::UINT32),
        ('i', 4) => Some(Dtype::INT32),
        ('f', 4) => Some(Dtype::FP32),
        ('u', 8) => Some(Dtype::UINT64),
        ('i', 8) => Some(Dtype::INT64),
        // ml_dtypes writes '<f1' for float8_e5m2 (numpy itself cannot load it).
        ('f', 1) => Some(Dtype::FP8_EXP5),
        ('V', 0) => return Err(unsupported("zero-size blob")),
        ('V', _) => None,
        ('f', 8) => return Err(unsupported("float64 has no ISA type")),
        ('f', _) => return Err(unsupported("float size with no ISA type")),
        _ => return Err(unsupported("integer size with no ISA type")),
    };

    let dtype = match (natural, hint) {
        (_, Some(h)) => {
            let hint_size = h.size().ok_or(NpyError::NoByteSize(h))?;
            if hint_size != size {
                return Err(NpyError::HintSize {
                    descr: descr.to_owned(),
                    size,
                    hint: h,
                    hint_size,
                });
            }
            h
        }
        (Some(d), None) => d,
        (None, None) => {
            return Err(NpyError::NeedsHint {
                descr: descr.to_owned(),
                size,
                example: match size {
                    1 => "fp8_exp4",
                    2 => "bfloat16",
                    4 => "fp32",
                    _ => "<type>",
                },
            })
        }
    };
    Ok((dtype, size, big_endian))
}

/// `product(shape) * size`, or `None` on overflow.
fn needed_bytes(shape: &[usize], size: usize) -> Option<usize> {
    element_count(shape)?.checked_mul(size)
}

fn element_count(shape: &[usize]) -> Option<usize> {
    shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d))
}

/// Reorders column-major element data to row-major. `data.len()` must equal
/// `product(shape) * size`.
fn fortran_to_c(data: &[u8], shape: &[usize], size: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len());
    if data.is_empty() {
        return out;
    }
    // Column-major strides (in elements): the first axis varies fastest.
    let mut strides = Vec::with_capacity(shape.len());
    let mut s = 1usize;
    for &d in shape {
        strides.push(s);
        s *= d;
    }
    // Walk the C-order multi-index, tracking the matching column-major offset.
    let mut idx = vec![0usize; shape.len()];
    let mut off = 0usize;
    loop {
        out.extend_from_slice(&data[off * size..(off + 1) * size]);
        let mut axis = shape.len();
        loop {
            if axis == 0 {
                return out;
            }
            axis -= 1;
            idx[axis] += 1;
            off += strides[axis];
            if idx[axis] < shape[axis] {
                break;
            }
            off -= strides[axis] * shape[axis];
            idx[axis] = 0;
        }
    }
}

// ---------------------------------------------------------------------------------------
// A parser for the subset of Python literals that appear in `.npy` headers.

/// A Python literal.
#[derive(Clone)]
enum Value {
    Str(String),
    Int(i128),
    Bool(bool),
    None,
    Tuple(Vec<Value>),
    List(Vec<Value>),
    Dict(Vec<(String, Value)>),
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let seq = |f: &mut fmt::Formatter<'_>, items: &[Value]| {
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{v}")?;
            }
            Ok(())
        };
        match self {
            Value::Str(s) => write!(f, "'{s}'"),
            Value::Int(n) => write!(f, "{n}"),
            Value::Bool(b) => f.write_str(if *b { "True" } else { "False" }),
            Value::None => f.write_str("None"),
            Value::Tuple(items) => {
                f.write_str("(")?;
                seq(f, items)?;
                f.write_str(if items.len() == 1 { ",)" } else { ")" })
            }
            Value::List(items) => {
                f.write_str("[")?;
                seq(f, items)?;
                f.write_str("]")
            }
            Value::Dict(entries) => {
                f.write_str("{")?;
                for (i, (k, v)) in entries.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "'{k}': {v}")?;
                }
                f.write_str("}")
            }
        }
    }
}

struct Parser<'a> {
    s: &'a [char],
    pos: usize,
    depth: usize,
}

impl Parser<'_> {
    fn err<T>(&self, what: &str) -> Result<T, NpyError> {
        Err(NpyError::BadHeader(match self.s.get(self.pos) {
            Some(c) => format!("{what} at {} (found {c:?})", self.pos),
            None => format!("{what} at end of header"),
        }))
    }

    fn peek(&self) -> Option<char> {
        self.s.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(' ' | '\t' | '\n' | '\r' | '\x0c')) {
            self.pos += 1;
        }
    }

    /// Skips whitespace, then consumes `c` if it is next.
    fn eat(&mut self, c: char) -> bool {
        self.skip_ws();
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn value(&mut self) -> Result<Value, NpyError> {
        self.skip_ws();
        match self.peek() {
            Some('{' | '(' | '[') => {
                if self.depth >= MAX_DEPTH {
                    return self.err("nesting too deep");
                }
                self.depth += 1;
                let v = self.container();
                self.depth -= 1;
                v
            }
            Some('\'' | '"') => self.string().map(Value::Str),
            Some('-' | '+' | '0'..='9') => self.int(),
            Some(c) if c.is_ascii_alphabetic() => {
                let start = self.pos;
                while self
                    .peek()
                    .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
                {
                    self.pos += 1;
                }
                let word: String = self.s[start..self.pos].iter().collect();
                match word.as_str() {
                    "True" => Ok(Value::Bool(true)),
                    "False" => Ok(Value::Bool(false)),
                    "None" => Ok(Value::None),
                    _ => {
                        self.pos = start;
                        self.err("unknown name")
                    }
                }
            }
            _ => self.err("expected a value"),
        }
    }

    /// A dict, tuple, parenthesised value or list; the opening bracket is next.
    fn container(&mut self) -> Result<Value, NpyError> {
        let open = self.peek().unwrap_or(' ');
        self.pos += 1;
        let close = match open {
            '{' => '}',
            '(' => ')',
            _ => ']',
        };
        let mut items = Vec::new();
        let mut entries = Vec::new();
        let mut trailing_comma = false;
        loop {
            if self.eat(close) {
                break;
            }
            if open == '{' {
                self.skip_ws();
                let key = match self.peek() {
                    Some('\'' | '"') => self.string()?,
                    _ => return self.err("expected a string key"),
                };
                if !self.eat(':') {
                    return self.err("expected ':'");
                }
                entries.push((key, self.value()?));
            } else {
                items.push(self.value()?);
            }
            trailing_comma = self.eat(',');
            if !trailing_comma {
                if self.eat(close) {
                    break;
                }
                return self.err(&format!("expected ',' or '{close}'"));
            }
        }
        Ok(match open {
            '{' => Value::Dict(entries),
            '[' => Value::List(items),
            // `(x)` is just `x`; only `(x,)` is a 1-tuple.
            _ if items.len() == 1 && !trailing_comma => items.pop().unwrap_or(Value::None),
            _ => Value::Tuple(items),
        })
    }

    fn string(&mut self) -> Result<String, NpyError> {
        let quote = self.peek().unwrap_or('\'');
        self.pos += 1;
        let mut out = String::new();
        loop {
            match self.peek() {
                None | Some('\n') => return self.err("unterminated string"),
                Some(c) if c == quote => {
                    self.pos += 1;
                    return Ok(out);
                }
                Some('\\') => {
                    self.pos += 1;
                    match self.peek() {
                        Some(c @ ('\\' | '\'' | '"')) => out.push(c),
                        Some('n') => out.push('\n'),
                        Some('t') => out.push('\t'),
                        Some(c) => {
                            out.push('\\');
                            out.push(c);
                        }
                        None => return self.err("unterminated string"),
                    }
                    self.pos += 1;
                }
                Some(c) => {
                    out.push(c);
                    self.pos += 1;
                }
            }
        }
    }

    fn int(&mut self) -> Result<Value, NpyError> {
        let start = self.pos;
        if matches!(self.peek(), Some('-' | '+')) {
            self.pos += 1;
        }
        let digits = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.pos += 1;
        }
        if self.pos == digits {
            return self.err("expected digits");
        }
        let text: String = self.s[start..self.pos].iter().collect();
        // Python 2 wrote longs as `3L`.
        if matches!(self.peek(), Some('L' | 'l')) {
            self.pos += 1;
        }
        match text.parse::<i128>() {
            Ok(n) => Ok(Value::Int(n)),
            Err(_) => {
                self.pos = start;
                self.err("integer too large")
            }
        }
    }
}

/// Formats a shape like a Python tuple: `()`, `(3,)`, `(2, 3)`.
struct ShapeFmt<'a>(&'a [usize]);

impl fmt::Display for ShapeFmt<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            [] => f.write_str("()"),
            [d] => write!(f, "({d},)"),
            dims => {
                f.write_str("(")?;
                for (i, d) in dims.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{d}")?;
                }
                f.write_str(")")
            }
        }
    }
}
