//! `.npy` reader/writer tests.
//!
//! Golden files in `tests/fixtures/npy/` come from `tools/gen_npy_fixtures.py` (numpy 2.4.6,
//! ml_dtypes 0.6.0); the expected values below are copied from its output. CI has no
//! Python, so only the committed files are used.

use std::path::{Path, PathBuf};

use tpb::npy::{
    descr_for, read_npy, read_npy_file, write_npy, write_npy_file, NpyArray, NpyError, NpyStyle,
};
use tpb_isa::{CodeEnum, Dtype};

fn fixture_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/npy")
        .join(name)
}

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(fixture_path(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn read(name: &str, hint: Option<Dtype>) -> NpyArray {
    read_npy(&fixture(name), hint).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn err(name: &str, hint: Option<Dtype>) -> String {
    match read_npy(&fixture(name), hint) {
        Ok(a) => panic!("{name}: expected an error, got {a:?}"),
        Err(e) => e.to_string(),
    }
}

fn dt(name: &str) -> Dtype {
    Dtype::parse_name(name).unwrap()
}

/// Builds a version 1.0 `.npy` file from a header dict literal and data bytes.
fn npy(dict: &str, data: &[u8]) -> Vec<u8> {
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(dict.len() as u16).to_le_bytes());
    out.extend_from_slice(dict.as_bytes());
    out.extend_from_slice(data);
    out
}

fn parse_err(bytes: &[u8], hint: Option<Dtype>) -> String {
    match read_npy(bytes, hint) {
        Ok(a) => panic!("expected an error, got {a:?}"),
        Err(e) => e.to_string(),
    }
}

fn le<const N: usize, T: Copy>(vals: &[T], f: impl Fn(T) -> [u8; N]) -> Vec<u8> {
    vals.iter().flat_map(|&v| f(v)).collect()
}

// ---------------------------------------------------------------------------------------
// Golden fixtures.

#[test]
fn float32_2x3() {
    let a = read("f32_2x3.npy", None);
    assert_eq!((a.dtype, a.shape.as_slice()), (Dtype::FP32, &[2, 3][..]));
    let want = [0.0f32, 1.0, -2.0, 0.5, 3.25, -0.125];
    assert_eq!(a.data, le(&want, f32::to_le_bytes));
    assert_eq!(&a.data[4..8], &[0x00, 0x00, 0x80, 0x3F]);
}

#[test]
fn uint8_int16_float16_scalar() {
    let a = read("u8.npy", None);
    assert_eq!((a.dtype, a.shape.as_slice()), (Dtype::UINT8, &[5][..]));
    assert_eq!(a.data, [0, 1, 127, 128, 255]);

    let a = read("i16_2x2.npy", None);
    assert_eq!((a.dtype, a.shape.as_slice()), (Dtype::INT16, &[2, 2][..]));
    assert_eq!(a.data, le(&[-32768i16, -1, 0, 32767], i16::to_le_bytes));

    let a = read("f16_scalar.npy", None);
    assert_eq!((a.dtype, a.shape.as_slice()), (Dtype::FP16, &[][..]));
    assert_eq!(a.data, 0x3E00u16.to_le_bytes()); // 1.5
}

#[test]
fn bfloat16_ml_dtypes_raw_blob() {
    let bits = le(&[0x3F80u16, 0xC000, 0x3F00, 0x7F80], u16::to_le_bytes); // 1, -2, 0.5, inf
    assert_eq!(
        err("bf16_ml_dtypes.npy", None),
        "descr '<V2' is a raw 2-byte blob: give the element type (e.g. --dtype bfloat16)"
    );
    let a = read("bf16_ml_dtypes.npy", Some(dt("bfloat16")));
    assert_eq!((a.dtype, a.shape.as_slice()), (Dtype::BFLOAT16, &[4][..]));
    assert_eq!(a.data, bits);
    // Any 2-byte type may claim the blob; other sizes may not.
    assert_eq!(
        read("bf16_ml_dtypes.npy", Some(Dtype::FP16)).dtype,
        Dtype::FP16
    );
    assert_eq!(
        err("bf16_ml_dtypes.npy", Some(dt("fp8_exp4"))),
        "descr '<V2' is 2 bytes but --dtype fp8_exp4 is 1 bytes"
    );
}

#[test]
fn bfloat16_uint16_bit_view() {
    let bits = le(&[0x3F80u16, 0xC000, 0x3F00, 0x7F80], u16::to_le_bytes);
    let a = read("bf16_bits_u2.npy", None);
    assert_eq!((a.dtype, a.shape.as_slice()), (Dtype::UINT16, &[4][..]));
    assert_eq!(a.data, bits);
    let a = read("bf16_bits_u2.npy", Some(dt("bf16")));
    assert_eq!(
        (a.dtype, a.data.as_slice()),
        (Dtype::BFLOAT16, bits.as_slice())
    );
    assert_eq!(
        err("bf16_bits_u2.npy", Some(Dtype::FP32)),
        "descr '<u2' is 2 bytes but --dtype fp32 is 4 bytes"
    );
}

#[test]
fn fp8_e4m3_ml_dtypes_raw_blob() {
    let bits = [0x38, 0xC0, 0x30, 0x00]; // 1, -2, 0.5, 0
    assert_eq!(
        err("fp8_e4m3_ml_dtypes.npy", None),
        "descr '<V1' is a raw 1-byte blob: give the element type (e.g. --dtype fp8_exp4)"
    );
    for name in ["fp8_exp4", "fp8_e4m3", "float8_e4m3"] {
        let a = read("fp8_e4m3_ml_dtypes.npy", Some(dt(name)));
        assert_eq!((a.dtype, a.shape.as_slice()), (Dtype::FP8_EXP4, &[4][..]));
        assert_eq!(a.data, bits);
    }
    for d in [Dtype::FP8_EXP3, Dtype::FP8_EXP5] {
        assert_eq!(read("fp8_e4m3_ml_dtypes.npy", Some(d)).dtype, d);
    }
    assert_eq!(
        err("fp8_e4m3_ml_dtypes.npy", Some(Dtype::BFLOAT16)),
        "descr '<V1' is 1 bytes but --dtype bfloat16 is 2 bytes"
    );
}

#[test]
fn fp8_e5m2_f1_oddity() {
    let bits = [0x3C, 0xC0, 0x38, 0x00]; // 1, -2, 0.5, 0
    let a = read("fp8_e5m2_ml_dtypes.npy", None);
    assert_eq!((a.dtype, a.shape.as_slice()), (Dtype::FP8_EXP5, &[4][..]));
    assert_eq!(a.data, bits);
    assert_eq!(
        read("fp8_e5m2_ml_dtypes.npy", Some(Dtype::FP8_EXP5)).dtype,
        Dtype::FP8_EXP5
    );
    let a = read("fp8_e5m2_ml_dtypes.npy", Some(Dtype::FP8_EXP4));
    assert_eq!((a.dtype, a.data.as_slice()), (Dtype::FP8_EXP4, &bits[..]));
    assert_eq!(
        err("fp8_e5m2_ml_dtypes.npy", Some(Dtype::BFLOAT16)),
        "descr '<f1' is 1 bytes but --dtype bfloat16 is 2 bytes"
    );
}

#[test]
fn fp8_uint8_bit_view() {
    let a = read("fp8_e4m3_bits_u1.npy", None);
    assert_eq!(
        (a.dtype, a.data.as_slice()),
        (Dtype::UINT8, &[0x38, 0xC0, 0x30, 0][..])
    );
    let a = read("fp8_e4m3_bits_u1.npy", Some(dt("fp8_exp4")));
    assert_eq!(
        (a.dtype, a.data.as_slice()),
        (Dtype::FP8_EXP4, &[0x38, 0xC0, 0x30, 0][..])
    );
    let a = read("fp8_e4m3_bits_u1.npy", Some(Dtype::INT8));
    assert_eq!(a.dtype, Dtype::INT8);
}

#[test]
fn fortran_order_is_transposed_to_c_order() {
    let a = read("i32_fortran_2x3x4.npy", None);
    assert_eq!(
        (a.dtype, a.shape.as_slice()),
        (Dtype::INT32, &[2, 3, 4][..])
    );
    assert_eq!(a.data, le(&(0..24).collect::<Vec<i32>>(), i32::to_le_bytes));
    // The file itself is column-major: element (1,0,0) = 12 comes second.
    let raw = fixture("i32_fortran_2x3x4.npy");
    assert_eq!(
        &raw[raw.len() - 96..raw.len() - 88],
        &[0, 0, 0, 0, 12, 0, 0, 0]
    );
}

#[test]
fn fortran_order_small_cases() {
    // 2x3 uint8, column-major on disk.
    let f = npy(
        "{'descr': '|u1', 'fortran_order': True, 'shape': (2, 3), }",
        &[1, 4, 2, 5, 3, 6],
    );
    assert_eq!(read_npy(&f, None).unwrap().data, [1, 2, 3, 4, 5, 6]);
    // 1-d and 0-d: nothing to reorder; empty arrays stay empty.
    let f = npy(
        "{'descr': '<u2', 'fortran_order': True, 'shape': (2,), }",
        &[1, 2, 3, 4],
    );
    assert_eq!(read_npy(&f, None).unwrap().data, [1, 2, 3, 4]);
    let f = npy(
        "{'descr': '<u2', 'fortran_order': True, 'shape': (), }",
        &[1, 2],
    );
    assert_eq!(read_npy(&f, None).unwrap().data, [1, 2]);
    let f = npy(
        "{'descr': '<u2', 'fortran_order': True, 'shape': (3, 0, 2), }",
        &[],
    );
    let a = read_npy(&f, None).unwrap();
    assert_eq!((a.shape.as_slice(), a.data.len()), (&[3, 0, 2][..], 0));
}

#[test]
fn big_endian_is_converted_to_little_endian() {
    let a = read("f32_big_endian.npy", None);
    assert_eq!((a.dtype, a.shape.as_slice()), (Dtype::FP32, &[3][..]));
    assert_eq!(a.data, le(&[1.0f32, -2.5, 3.0], f32::to_le_bytes));

    let f = npy(
        "{'descr': '>u2', 'fortran_order': False, 'shape': (2,), }",
        &[0x12, 0x34, 0xAB, 0xCD],
    );
    assert_eq!(read_npy(&f, None).unwrap().data, [0x34, 0x12, 0xCD, 0xAB]);
    // A big-endian bfloat16 blob (what ml_dtypes would write on a big-endian host).
    let f = npy(
        "{'descr': '>V2', 'fortran_order': False, 'shape': (1,), }",
        &[0x3F, 0x80],
    );
    let a = read_npy(&f, Some(Dtype::BFLOAT16)).unwrap();
    assert_eq!(a.data, 0x3F80u16.to_le_bytes());
    // Big-endian and Fortran order together.
    let f = npy(
        "{'descr': '>i2', 'fortran_order': True, 'shape': (2, 2), }",
        &[0, 1, 0, 3, 0, 2, 0, 4],
    );
    assert_eq!(
        read_npy(&f, None).unwrap().data,
        le(&[1i16, 2, 3, 4], i16::to_le_bytes)
    );
    // '|' on a 1-byte type and '>' on a 1-byte type are the same thing.
    let f = npy(
        "{'descr': '>u1', 'fortran_order': False, 'shape': (2,), }",
        &[7, 8],
    );
    assert_eq!(read_npy(&f, None).unwrap().data, [7, 8]);
}

#[test]
fn header_versions_2_and_3() {
    let a = read("u32_v2.npy", None);
    assert_eq!((a.dtype, a.shape.as_slice()), (Dtype::UINT32, &[3][..]));
    assert_eq!(a.data, le(&[1u32, 0xDEAD_BEEF, 7], u32::to_le_bytes));
    let a = read("i8_v3.npy", None);
    assert_eq!((a.dtype, a.shape.as_slice()), (Dtype::INT8, &[2][..]));
    assert_eq!(a.data, [0xFF, 0x02]);
}

#[test]
fn bool_reads_as_uint8() {
    let a = read("bool.npy", None);
    assert_eq!((a.dtype, a.shape.as_slice()), (Dtype::UINT8, &[3][..]));
    assert_eq!(a.data, [1, 0, 1]);
}

#[test]
fn other_native_descrs() {
    for (descr, want) in [
        ("<u1", Dtype::UINT8),
        ("u1", Dtype::UINT8),
        ("|?", Dtype::UINT8),
        ("<i4", Dtype::INT32),
        ("<u4", Dtype::UINT32),
        ("<f2", Dtype::FP16),
        ("<u8", Dtype::UINT64),
        ("<i8", Dtype::INT64),
    ] {
        let size = want.size().unwrap();
        let f = npy(
            &format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': (3,), }}"),
            &vec![0xA5; 3 * size],
        );
        let a = read_npy(&f, None).unwrap_or_else(|e| panic!("{descr}: {e}"));
        assert_eq!((a.dtype, a.data.len()), (want, 3 * size), "{descr}");
    }
    // '<f4' + fp32r hint: same size, so a reinterpretation.
    let a = read("f32_2x3.npy", Some(Dtype::FP32R));
    assert_eq!(a.dtype, Dtype::FP32R);
}

// ---------------------------------------------------------------------------------------
// Errors.

#[test]
fn unsupported_descrs() {
    for (descr, size) in [
        ("<c8", 8),
        ("<f8", 8),
        ("|O", 8),
        ("<U3", 12),
        ("|S4", 4),
        ("<M8[ns]", 8),
        ("<u16", 16),
        ("", 1),
        ("float32", 4),
    ] {
        let f = npy(
            &format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': (1,), }}"),
            &vec![0; size],
        );
        let msg = parse_err(&f, None);
        assert!(
            msg.starts_with(&format!("unsupported descr '{descr}'")),
            "{descr}: {msg}"
        );
        // A hint does not rescue these either.
        let msg = parse_err(&f, Some(Dtype::UINT8));
        assert!(msg.starts_with("unsupported descr"), "{descr}+hint: {msg}");
    }
    assert_eq!(
        parse_err(
            &npy(
                "{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }",
                &[0; 8]
            ),
            None
        ),
        "unsupported descr '<c8' (complex)"
    );
    let f = npy(
        "{'descr': [('a', '<f4'), ('b', '<i4')], 'fortran_order': False, 'shape': (1,), }",
        &[0; 8],
    );
    assert_eq!(
        parse_err(&f, None),
        "unsupported descr '[('a', '<f4'), ('b', '<i4')]' (structured array)"
    );
}

#[test]
fn hint_without_byte_size() {
    let msg = err("u8.npy", Some(Dtype::INT4));
    assert!(msg.contains("int4 has no whole-byte element size"), "{msg}");
}

#[test]
fn data_length_mismatch() {
    let dict = "{'descr': '<u2', 'fortran_order': False, 'shape': (4, 4), }";
    assert_eq!(
        parse_err(&npy(dict, &[0; 10]), None),
        "file holds 10 bytes of data but shape (4, 4) of uint16 needs 32"
    );
    assert_eq!(
        parse_err(&npy(dict, &[0; 33]), None),
        "file holds 33 bytes of data but shape (4, 4) of uint16 needs 32"
    );
    // The message names the hinted type.
    assert_eq!(
        parse_err(&npy(dict, &[0; 30]), Some(Dtype::BFLOAT16)),
        "file holds 30 bytes of data but shape (4, 4) of bfloat16 needs 32"
    );
    let mut f = fixture("u8.npy");
    f.pop();
    assert_eq!(
        parse_err(&f, None),
        "file holds 4 bytes of data but shape (5,) of uint8 needs 5"
    );
}

#[test]
fn preamble_errors() {
    assert_eq!(
        parse_err(b"", None),
        "truncated .npy file: 0 bytes, shorter than the preamble"
    );
    assert_eq!(
        parse_err(b"\x93NUM", None),
        "truncated .npy file: 4 bytes, shorter than the preamble"
    );
    assert_eq!(
        parse_err(b"PK\x03\x04 this is a zip", None),
        "bad .npy magic (not a .npy file)"
    );
    assert_eq!(
        parse_err(b"\x93NUMPZ\x01\x00", None),
        "bad .npy magic (not a .npy file)"
    );
    let mut f = fixture("u8.npy");
    f[6] = 4;
    assert_eq!(
        parse_err(&f, None),
        "unsupported .npy format version 4.0 (only 1.0, 2.0 and 3.0 exist)"
    );
    f[6] = 1;
    f[7] = 1;
    assert!(parse_err(&f, None).contains("version 1.1"));
    assert_eq!(
        parse_err(b"\x93NUMPY\x02\x00\x10\x00", None),
        "truncated .npy file: ends inside the header length"
    );
    let f = fixture("u8.npy");
    assert_eq!(
        parse_err(&f[..50], None),
        "truncated .npy file: header says 118 bytes but only 40 follow"
    );
}

#[test]
fn malformed_headers() {
    for (dict, want) in [
        ("", "expected a value at end of header"),
        ("[1, 2]", "header is not a dict"),
        (
            "{'descr': '<u1', 'fortran_order': False}",
            "missing key 'shape'",
        ),
        (
            "{'descr': '<u1', 'shape': (1,)}",
            "missing key 'fortran_order'",
        ),
        (
            "{'fortran_order': False, 'shape': (1,)}",
            "missing key 'descr'",
        ),
        (
            "{'descr': '<u1', 'fortran_order': False, 'shape': (1,), 'x': 1}",
            "unexpected key 'x'",
        ),
        (
            "{'descr': '<u1', 'descr': '<u1', 'fortran_order': False, 'shape': (1,)}",
            "duplicate key 'descr'",
        ),
        (
            "{'descr': '<u1', 'fortran_order': 0, 'shape': (1,)}",
            "fortran_order is not a bool: 0",
        ),
        (
            "{'descr': '<u1', 'fortran_order': False, 'shape': [1]}",
            "shape is not a tuple: [1]",
        ),
        (
            "{'descr': '<u1', 'fortran_order': False, 'shape': (1)}",
            "shape is not a tuple: 1",
        ),
        (
            "{'descr': '<u1', 'fortran_order': False, 'shape': (-1,)}",
            "shape is not a tuple of sizes: (-1,)",
        ),
        (
            "{'descr': '<u1', 'fortran_order': False, 'shape': ('1',)}",
            "shape is not a tuple of sizes",
        ),
        (
            "{'descr': '<u1', 'fortran_order': False, 'shape': (1,)} x",
            "unexpected text after the dict",
        ),
        (
            "{'descr': '<u1', 'fortran_order': false, 'shape': (1,)}",
            "unknown name",
        ),
        ("{'descr: '<u1'}", "expected ':'"),
        (
            "{'descr': '<u1' 'fortran_order': False}",
            "expected ',' or '}'",
        ),
        ("{descr: 1}", "expected a string key"),
        ("{'descr': '<u1", "unterminated string"),
        (
            "{'shape': (99999999999999999999999999999999999999999,)}",
            "integer too large",
        ),
        ("{'shape': (1 2)}", "expected ',' or ')'"),
        ("{'shape': (-)}", "expected digits"),
    ] {
        let msg = parse_err(&npy(dict, &[0]), None);
        assert!(msg.starts_with("malformed .npy header: "), "{dict}: {msg}");
        assert!(msg.contains(want), "{dict}: {msg}");
    }
    // Deep nesting is an error, not a stack overflow.
    let deep = format!("{}{}", "(".repeat(100_000), ")".repeat(100_000));
    assert!(
        parse_err(&npy(&format!("{{'shape': {deep}}}"), &[]), None).contains("nesting too deep")
    );
    // A version 3.0 header must be UTF-8.
    let mut f = fixture("i8_v3.npy");
    f[12] = 0xFF;
    assert_eq!(
        parse_err(&f, None),
        "malformed .npy header: version 3.0 header is not UTF-8"
    );
}

#[test]
fn header_leniency() {
    // Double quotes, no trailing comma, Python 2 longs, other whitespace, latin-1 padding.
    let f = npy(
        "{\"descr\":\"<u2\",\t\"fortran_order\" : False,\n'shape':(1L, 2L)}\r\n\u{a0}",
        &[1, 0, 2, 0],
    );
    // The dict literal above is UTF-8 text; as latin-1 the NBSP is 2 bytes, not whitespace.
    assert!(parse_err(&f, None).contains("unexpected text after the dict"));
    let f = npy(
        "{\"descr\":\"<u2\",\t\"fortran_order\" : False,\n'shape':(1L, 2L)}\r\n   ",
        &[1, 0, 2, 0],
    );
    let a = read_npy(&f, None).unwrap();
    assert_eq!(
        (a.shape.as_slice(), a.data.as_slice()),
        (&[1, 2][..], &[1, 0, 2, 0][..])
    );
}

#[test]
fn huge_shape_is_an_error_not_an_allocation() {
    let dict = format!(
        "{{'descr': '<u4', 'fortran_order': True, 'shape': ({}, {}), }}",
        usize::MAX,
        usize::MAX
    );
    assert!(parse_err(&npy(&dict, &[]), None).starts_with("shape ("));
    let dict = format!(
        "{{'descr': '<u4', 'fortran_order': False, 'shape': ({},), }}",
        usize::MAX / 2
    );
    assert!(parse_err(&npy(&dict, &[0; 4]), None).contains("is too large"));
    let dict = "{'descr': '<u4', 'fortran_order': False, 'shape': (1000000000, 1000000), }";
    assert!(
        parse_err(&npy(dict, &[0; 4]), None).starts_with("file holds 4 bytes of data but shape")
    );
}

#[test]
fn io_errors_name_the_path() {
    let p = Path::new("/nonexistent-dir-for-tpb-tests/x.npy");
    let msg = read_npy_file(p, None).unwrap_err().to_string();
    assert!(
        msg.starts_with("/nonexistent-dir-for-tpb-tests/x.npy: "),
        "{msg}"
    );
    let arr = read("u8.npy", None);
    let msg = write_npy_file(p, &arr, NpyStyle::BitView)
        .unwrap_err()
        .to_string();
    assert!(
        msg.starts_with("/nonexistent-dir-for-tpb-tests/x.npy: "),
        "{msg}"
    );
}

// ---------------------------------------------------------------------------------------
// Writing.

#[test]
fn write_matches_numpy_byte_for_byte() {
    // np.save output for native types, and for bit views, is reproduced exactly.
    for (name, hint) in [
        ("f32_2x3.npy", None),
        ("u8.npy", None),
        ("i16_2x2.npy", None),
        ("f16_scalar.npy", None),
        ("bf16_bits_u2.npy", None),
        ("fp8_e4m3_bits_u1.npy", None),
        // Default style writes bf16/fp8 as the bit views numpy can load.
        ("bf16_ml_dtypes.npy", Some(Dtype::BFLOAT16)),
        ("fp8_e4m3_ml_dtypes.npy", Some(Dtype::FP8_EXP4)),
        ("fp8_e5m2_ml_dtypes.npy", None),
    ] {
        let a = read(name, hint);
        let bits_file = match a.dtype {
            Dtype::BFLOAT16 => "bf16_bits_u2.npy",
            Dtype::FP8_EXP4 | Dtype::FP8_EXP5 => "fp8_e4m3_bits_u1.npy",
            _ => name,
        };
        let mut want = fixture(bits_file);
        let data_at = want.len() - a.data.len();
        want.truncate(data_at);
        want.extend_from_slice(&a.data);
        assert_eq!(write_npy(&a, NpyStyle::default()).unwrap(), want, "{name}");
    }
    // The ml_dtypes style reproduces ml_dtypes' bfloat16 file exactly.
    let a = read("bf16_ml_dtypes.npy", Some(Dtype::BFLOAT16));
    assert_eq!(
        write_npy(&a, NpyStyle::MlDtypes).unwrap(),
        fixture("bf16_ml_dtypes.npy")
    );
}

#[test]
fn descrs_written() {
    use NpyStyle::*;
    for (d, bits, raw) in [
        (Dtype::UINT8, "|u1", "|u1"),
        (Dtype::INT8, "|i1", "|i1"),
        (Dtype::UINT16, "<u2", "<u2"),
        (Dtype::INT16, "<i2", "<i2"),
        (Dtype::FP16, "<f2", "<f2"),
        (Dtype::INT32, "<i4", "<i4"),
        (Dtype::UINT32, "<u4", "<u4"),
        (Dtype::FP32, "<f4", "<f4"),
        (Dtype::FP32R, "<f4", "<f4"),
        (Dtype::UINT64, "<u8", "<u8"),
        (Dtype::INT64, "<i8", "<i8"),
        (Dtype::BFLOAT16, "<u2", "<V2"),
        (Dtype::FP8_EXP3, "|u1", "|V1"),
        (Dtype::FP8_EXP4, "|u1", "|V1"),
        (Dtype::FP8_EXP5, "|u1", "|V1"),
    ] {
        assert_eq!(descr_for(d, BitView), Some(bits), "{d}");
        assert_eq!(descr_for(d, MlDtypes), Some(raw), "{d}");
        let a = NpyArray::new(d, vec![1], vec![0; d.size().unwrap()]).unwrap();
        let text = String::from_utf8_lossy(&write_npy(&a, MlDtypes).unwrap()).into_owned();
        assert!(
            text.contains(&format!("{{'descr': '{raw}', ")),
            "{d}: {text}"
        );
    }
    assert_eq!(descr_for(Dtype::INT4, BitView), None);
}

#[test]
fn round_trips() {
    let all = [
        ("f32_2x3.npy", None),
        ("u8.npy", None),
        ("i16_2x2.npy", None),
        ("f16_scalar.npy", None),
        ("bf16_ml_dtypes.npy", Some(Dtype::BFLOAT16)),
        ("bf16_bits_u2.npy", Some(Dtype::BFLOAT16)),
        ("fp8_e4m3_ml_dtypes.npy", Some(Dtype::FP8_EXP4)),
        ("fp8_e4m3_ml_dtypes.npy", Some(Dtype::FP8_EXP3)),
        ("fp8_e5m2_ml_dtypes.npy", None),
        ("fp8_e4m3_bits_u1.npy", None),
        ("i32_fortran_2x3x4.npy", None),
        ("f32_big_endian.npy", None),
        ("u32_v2.npy", None),
        ("i8_v3.npy", None),
        ("bool.npy", None),
        ("f32_2x3.npy", Some(Dtype::FP32R)),
    ];
    for (name, hint) in all {
        let a = read(name, hint);
        for style in [NpyStyle::BitView, NpyStyle::MlDtypes] {
            let bytes = write_npy(&a, style).unwrap();
            assert_eq!(
                bytes.len() % 64,
                a.data.len() % 64,
                "{name}: data is 64-aligned"
            );
            assert_eq!(
                read_npy(&bytes, Some(a.dtype)).unwrap(),
                a,
                "{name} {style:?}"
            );
            // Types numpy knows come back without a hint.
            if hint.is_none() && a.dtype != Dtype::FP8_EXP5 {
                assert_eq!(
                    read_npy(&bytes, None).unwrap(),
                    a,
                    "{name} {style:?} no hint"
                );
            }
        }
    }
}

#[test]
fn file_round_trip() {
    let dir = std::env::temp_dir().join(format!("tpb-npy-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bf16.npy");
    let a = read("bf16_ml_dtypes.npy", Some(Dtype::BFLOAT16));
    write_npy_file(&path, &a, NpyStyle::BitView).unwrap();
    assert_eq!(read_npy_file(&path, Some(Dtype::BFLOAT16)).unwrap(), a);
    assert_eq!(read_npy_file(&path, None).unwrap().dtype, Dtype::UINT16);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 20 item 9: at most numpy's 64 dimensions, written and read; a header length past
/// 64 KiB is refused before the header is read.
#[test]
fn dimensions_are_capped_at_64() {
    let a = NpyArray::new(Dtype::UINT16, vec![1; 64], vec![0xCD, 0xAB]).unwrap();
    let bytes = write_npy(&a, NpyStyle::BitView).unwrap();
    assert_eq!(&bytes[6..8], &[1, 0]);
    assert_eq!(read_npy(&bytes, None).unwrap(), a);
    let e = NpyArray::new(Dtype::UINT16, vec![1; 65], vec![0xCD, 0xAB]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "the shape has 65 dimensions; numpy allows at most 64"
    );
    let dims = vec!["1"; 65].join(", ");
    let file = npy(
        &format!("{{'descr': '<u2', 'fortran_order': False, 'shape': ({dims}), }}"),
        &[0; 2],
    );
    assert_eq!(
        parse_err(&file, None),
        "the shape has 65 dimensions; numpy allows at most 64"
    );
    let mut long = b"\x93NUMPY\x02\x00".to_vec();
    long.extend_from_slice(&(1u32 << 20).to_le_bytes());
    assert_eq!(
        parse_err(&long, None),
        "the header says it is 1048576 bytes long; tpb reads headers of at most 65536 bytes"
    );
}

#[test]
fn inconsistent_arrays_are_refused() {
    let short = NpyArray {
        dtype: Dtype::FP32,
        shape: vec![2, 2],
        data: vec![0; 15],
    };
    assert_eq!(
        write_npy(&short, NpyStyle::BitView)
            .unwrap_err()
            .to_string(),
        "file holds 15 bytes of data but shape (2, 2) of fp32 needs 16"
    );
    assert!(NpyArray::new(Dtype::FP32, vec![2, 2], vec![0; 15]).is_err());
    let packed = NpyArray {
        dtype: Dtype::INT4,
        shape: vec![2],
        data: vec![0],
    };
    assert!(matches!(
        write_npy(&packed, NpyStyle::BitView),
        Err(NpyError::NoByteSize(_))
    ));
    let p = std::env::temp_dir().join("tpb-npy-never-written.npy");
    assert!(write_npy_file(&p, &packed, NpyStyle::BitView).is_err());
    assert!(!p.exists());
    assert_eq!(
        NpyArray::new(Dtype::UINT8, vec![], vec![9])
            .unwrap()
            .element_count(),
        Some(1)
    );
}

// ---------------------------------------------------------------------------------------
// Robustness: no input panics.

const ALL_FIXTURES: [&str; 14] = [
    "f32_2x3.npy",
    "u8.npy",
    "i16_2x2.npy",
    "f16_scalar.npy",
    "bf16_ml_dtypes.npy",
    "bf16_bits_u2.npy",
    "fp8_e4m3_ml_dtypes.npy",
    "fp8_e5m2_ml_dtypes.npy",
    "fp8_e4m3_bits_u1.npy",
    "i32_fortran_2x3x4.npy",
    "f32_big_endian.npy",
    "u32_v2.npy",
    "i8_v3.npy",
    "bool.npy",
];

const HINTS: [Option<Dtype>; 5] = [
    None,
    Some(Dtype::BFLOAT16),
    Some(Dtype::FP8_EXP4),
    Some(Dtype::FP32),
    Some(Dtype::INT4),
];

/// xorshift64*: deterministic, dependency-free randomness.
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

#[test]
fn fixture_list_is_complete() {
    let mut on_disk: Vec<String> = std::fs::read_dir(fixture_path(""))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    on_disk.sort();
    let mut listed: Vec<String> = ALL_FIXTURES.iter().map(|s| s.to_string()).collect();
    listed.sort();
    assert_eq!(on_disk, listed);
}

#[test]
fn fuzz_truncations_never_panic() {
    for name in ALL_FIXTURES {
        let f = fixture(name);
        for len in 0..f.len() {
            for hint in HINTS {
                // Every proper prefix is missing data, so it must be an error.
                assert!(read_npy(&f[..len], hint).is_err(), "{name}[..{len}]");
            }
        }
    }
}

#[test]
fn fuzz_mutations_and_random_bytes_never_panic() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let files: Vec<Vec<u8>> = ALL_FIXTURES.iter().map(|n| fixture(n)).collect();
    let alphabet =
        b"{}()[]',:\"\\ -0123456789LTrueFalsNo<>|=!bufiVcOSUM?\n\x93NUMPY\x00\x01\x02\x03\xff";
    for _ in 0..20_000 {
        let mut f = files[rng.below(files.len())].clone();
        for _ in 0..1 + rng.below(4) {
            let i = rng.below(f.len());
            match rng.below(4) {
                0 => f[i] = rng.next_u64() as u8,
                1 => f[i] = alphabet[rng.below(alphabet.len())],
                2 => {
                    f.remove(i);
                }
                _ => f.insert(i, alphabet[rng.below(alphabet.len())]),
            }
        }
        let _ = read_npy(&f, HINTS[rng.below(HINTS.len())]);
    }
    for _ in 0..5_000 {
        let len = rng.below(300);
        let mut f: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
        if rng.below(2) == 0 && f.len() >= 10 {
            // Give half of them a valid preamble so the header parser gets exercised.
            f[..8].copy_from_slice(b"\x93NUMPY\x01\x00");
            let hlen = (rng.below(f.len() - 9)) as u16;
            f[8..10].copy_from_slice(&hlen.to_le_bytes());
            for b in &mut f[10..] {
                if rng.below(2) == 0 {
                    *b = alphabet[rng.below(alphabet.len())];
                }
            }
        }
        let _ = read_npy(&f, HINTS[rng.below(HINTS.len())]);
    }
}

/// Writes default-style files for checking by hand that numpy loads them:
/// `TPB_NPY_DUMP_DIR=/tmp/x cargo test -p tpb --test npy dump_for_numpy`, then `np.load`
/// each file. Does nothing unless the variable is set.
#[test]
fn dump_for_numpy() {
    let Some(dir) = std::env::var_os("TPB_NPY_DUMP_DIR") else {
        return;
    };
    let dir = PathBuf::from(dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (name, hint) in [
        ("f32_2x3.npy", None),
        ("u8.npy", None),
        ("i16_2x2.npy", None),
        ("f16_scalar.npy", None),
        ("bf16_ml_dtypes.npy", Some(Dtype::BFLOAT16)),
        ("fp8_e4m3_ml_dtypes.npy", Some(Dtype::FP8_EXP4)),
        ("fp8_e5m2_ml_dtypes.npy", None),
        ("i32_fortran_2x3x4.npy", None),
        ("f32_big_endian.npy", None),
        ("u32_v2.npy", None),
        ("i8_v3.npy", None),
        ("bool.npy", None),
    ] {
        let a = read(name, hint);
        write_npy_file(&dir.join(name), &a, NpyStyle::BitView).unwrap();
        write_npy_file(&dir.join(format!("raw_{name}")), &a, NpyStyle::MlDtypes).unwrap();
    }
    let wide = NpyArray::new(Dtype::INT64, vec![2, 1], (0u8..16).collect()).unwrap();
    write_npy_file(&dir.join("i64.npy"), &wide, NpyStyle::BitView).unwrap();
}
