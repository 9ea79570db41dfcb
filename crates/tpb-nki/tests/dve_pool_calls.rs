//! Issue 17a calls end to end (emit → validate → run): against NumPy/ml_dtypes fixtures
//! (tools/gen_dve_pool_fixtures.py) and plain reference loops (isa-facts-dve-pool §1.5,
//! §2.4, §3.4, §4.4, §5, §6.4, §7.4, §15), plus their refusals.

use tpb_isa::geometry::Space;
use tpb_isa::{AluOp, CodeEnum, Dtype, Gen};
use tpb_nki::{Core, Index, NkiEngine, NkiError, Operand, Tile};

const DTYPES: [&str; 12] = [
    "int8", "uint8", "int16", "uint16", "bfloat16", "fp16", "int32", "uint32", "fp32", "fp8_exp3",
    "fp8_exp4", "fp8_exp5",
];

fn fixture(name: &str) -> Vec<u32> {
    let p = format!(
        "{}/../tpb-sim/tests/fixtures/dve_pool/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&p)
        .unwrap_or_else(|e| panic!("{p}: {e}"))
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn dtype(name: &str) -> Dtype {
    Dtype::parse_name(name).unwrap_or_else(|| panic!("dtype {name}"))
}

fn to_bytes(d: Dtype, raw: &[u32]) -> Vec<u8> {
    let s = d.size().unwrap();
    raw.iter()
        .flat_map(|v| v.to_le_bytes()[..s].to_vec())
        .collect()
}

fn from_bytes(d: Dtype, b: &[u8]) -> Vec<u32> {
    let s = d.size().unwrap();
    b.chunks_exact(s)
        .map(|c| {
            let mut w = [0u8; 4];
            w[..s].copy_from_slice(c);
            u32::from_le_bytes(w)
        })
        .collect()
}

fn tile(core: &mut Core, shape: &[usize], d: Dtype, raw: &[u32]) -> Tile {
    let t = core.ndarray(shape, d, Space::Sbuf).unwrap();
    core.write(&t, &to_bytes(d, raw)).unwrap();
    t
}

fn read(core: &Core, t: &Tile) -> Vec<u32> {
    from_bytes(t.dtype, &core.read(t).unwrap())
}

// §4.4 / decisions §4.4, §4.6: Copy for equal dtypes, Cast otherwise, every pair.
#[test]
fn tensor_copy_every_dtype_pair_matches_numpy() {
    for name in DTYPES {
        let v = fixture(&format!("cast_{name}.u32"));
        let n = v.len() / 13;
        let input = &v[..n];
        for (j, oname) in DTYPES.iter().enumerate() {
            let mut core = Core::new(Gen::Cayman);
            let src = tile(&mut core, &[1, n], dtype(name), input);
            let dst = core.ndarray(&[1, n], dtype(oname), Space::Sbuf).unwrap();
            core.tensor_copy(&dst, &src, NkiEngine::Unknown).unwrap();
            let mnemonic = core.program()[0].info(Gen::Cayman).unwrap().mnemonic;
            assert_eq!(mnemonic, if name == *oname { "copy" } else { "cast" });
            let got = read(&core, &dst);
            let want = &v[(j + 1) * n..(j + 2) * n];
            for k in 0..n {
                assert_eq!(
                    got[k], want[k],
                    "{name} {:#x} -> {oname}: got {:#x}, numpy {:#x}",
                    input[k], got[k], want[k]
                );
            }
        }
    }
}

// §5, Q5: IEEE 1/x in FP32.
#[test]
fn reciprocal_matches_numpy() {
    let v = fixture("reciprocal.u32");
    let n = v.len() / 2;
    let mut core = Core::new(Gen::Cayman);
    let src = tile(&mut core, &[1, n], Dtype::FP32, &v[..n]);
    let dst = core.ndarray(&[1, n], Dtype::FP32, Space::Sbuf).unwrap();
    core.reciprocal(&dst, &src).unwrap();
    assert_eq!(read(&core, &dst), &v[n..]);
}

// §1.5: FP32 ops against numpy float32 (maximum/minimum without NaN inputs).
#[test]
fn tensor_tensor_fp32_matches_numpy() {
    for (name, op) in [
        ("add", AluOp::ADD),
        ("subtract", AluOp::SUBTRACT),
        ("mult", AluOp::MULT),
        ("max", AluOp::MAX),
        ("min", AluOp::MIN),
        ("is_ge", AluOp::IS_GE),
        ("is_eq", AluOp::IS_EQ),
    ] {
        let v = fixture(&format!("tt_{name}.u32"));
        let n = v.len() / 3;
        let mut core = Core::new(Gen::Mariana);
        let a = tile(&mut core, &[1, n], Dtype::FP32, &v[..n]);
        let b = tile(&mut core, &[1, n], Dtype::FP32, &v[n..2 * n]);
        let d = core.ndarray(&[1, n], Dtype::FP32, Space::Sbuf).unwrap();
        core.tensor_tensor(&d, &a, &b, op, NkiEngine::Vector)
            .unwrap();
        // numpy's comparisons give bool → float32 1.0 / 0.0, as the ALU does.
        assert_eq!(read(&core, &d), &v[2 * n..], "{name}");
    }
}

// §1.5, §1.6: all-int32 add on GpSimd is the wrapping integer band; on Vector, FP32.
#[test]
fn tensor_tensor_int32_uses_the_integer_band_unless_vector() {
    let (p, f) = (4usize, 8usize);
    let a: Vec<u32> = (0..p * f).map(|i| 0x7FFF_FFF0 + i as u32).collect();
    let b: Vec<u32> = (0..p * f).map(|i| 0x10 + 3 * i as u32).collect();
    let mut core = Core::new(Gen::Cayman);
    let ta = tile(&mut core, &[p, f], Dtype::INT32, &a);
    let tb = tile(&mut core, &[p, f], Dtype::INT32, &b);
    let d = core.ndarray(&[p, f], Dtype::INT32, Space::Sbuf).unwrap();
    core.tensor_tensor(&d, &ta, &tb, AluOp::ADD, NkiEngine::Unknown)
        .unwrap();
    let want: Vec<u32> = a.iter().zip(&b).map(|(x, y)| x.wrapping_add(*y)).collect();
    assert_eq!(read(&core, &d), want);
    assert!(core.disasm().contains("op=add_int"), "{}", core.disasm());
    // Vector: through FP32, saturating on the way back (decisions §4.6).
    core.tensor_tensor(&d, &ta, &tb, AluOp::ADD, NkiEngine::Vector)
        .unwrap();
    let fp: Vec<u32> = a
        .iter()
        .zip(&b)
        .map(|(x, y)| {
            let s = (*x as i32 as f32) + (*y as i32 as f32);
            (s.round_ties_even().clamp(i32::MIN as f32, i32::MAX as f32) as i32) as u32
        })
        .collect();
    assert_eq!(read(&core, &d), fp);
}

// §1.5 bitvec: raw bits, one dtype.
#[test]
fn tensor_tensor_bitvec_xor_and_shift() {
    let a: Vec<u32> = (0..64u32)
        .map(|i| i.wrapping_mul(2_654_435_761) & 0xFFFF)
        .collect();
    let b: Vec<u32> = (0..64).map(|i| i % 17).collect();
    let mut core = Core::new(Gen::Sunda);
    let ta = tile(&mut core, &[2, 32], Dtype::UINT16, &a);
    let tb = tile(&mut core, &[2, 32], Dtype::UINT16, &b);
    let d = core.ndarray(&[2, 32], Dtype::UINT16, Space::Sbuf).unwrap();
    core.tensor_tensor(&d, &ta, &tb, AluOp::BITWISE_XOR, NkiEngine::Unknown)
        .unwrap();
    let want: Vec<u32> = a.iter().zip(&b).map(|(x, y)| x ^ y).collect();
    assert_eq!(read(&core, &d), want);
    core.tensor_tensor(&d, &ta, &tb, AluOp::LOGICAL_SHIFT_LEFT, NkiEngine::Unknown)
        .unwrap();
    let want: Vec<u32> = a
        .iter()
        .zip(&b)
        .map(|(x, y)| if *y >= 16 { 0 } else { (x << y) & 0xFFFF })
        .collect();
    assert_eq!(read(&core, &d), want);
}

// §6.4: raw fill; the value converts to the dtype; integers must be in range.
#[test]
fn memset_fills_and_checks_the_value() {
    let mut core = Core::new(Gen::Maverick);
    let d = core
        .ndarray(&[128, 3, 5], Dtype::BFLOAT16, Space::Sbuf)
        .unwrap();
    core.memset(&d, 1.0, NkiEngine::Unknown).unwrap();
    assert!(read(&core, &d).iter().all(|&v| v == 0x3F80));
    let i = core.ndarray(&[7, 9], Dtype::INT8, Space::Sbuf).unwrap();
    core.memset(&i, -5.0, NkiEngine::Gpsimd).unwrap();
    assert!(read(&core, &i).iter().all(|&v| v == 0xFB));
    let before = core.program().len();
    let e = core.memset(&i, 1.5, NkiEngine::Unknown).unwrap_err();
    assert!(
        matches!(
            e,
            NkiError::Value {
                argument: "value",
                ..
            }
        ),
        "{e}"
    );
    let e = core.memset(&i, 300.0, NkiEngine::Unknown).unwrap_err();
    assert!(matches!(e, NkiError::Value { .. }), "{e}");
    assert_eq!(core.program().len(), before, "nothing emitted");
}

/// The plain reference fold (`reduce-geometry`): FP32, element order, then negate.
fn fold(op: AluOp, xs: &[f32]) -> f32 {
    let mut acc = xs[0];
    for &x in &xs[1..] {
        acc = match op {
            AluOp::ADD => acc + x,
            AluOp::MAX => acc.max(x),
            AluOp::MIN => acc.min(x),
            AluOp::MULT => acc * x,
            _ => unreachable!(),
        };
    }
    acc
}

// §7.4 / Q9: trailing axes, FP32 fold in element order, negate.
#[test]
fn tensor_reduce_matches_the_reference_fold() {
    let (p, a, b) = (16usize, 6usize, 10usize);
    let xs: Vec<f32> = (0..p * a * b)
        .map(|i| ((i * 7919) % 1000) as f32 / 7.0 - 60.0)
        .collect();
    let raw: Vec<u32> = xs.iter().map(|x| x.to_bits()).collect();
    for (axes, kept, op, negate) in [
        (vec![2usize], a, AluOp::ADD, false),
        (vec![2], a, AluOp::MAX, true),
        (vec![1, 2], 1, AluOp::ADD, true),
        (vec![1, 2], 1, AluOp::MIN, false),
    ] {
        let mut core = Core::new(Gen::Cayman);
        let src = tile(&mut core, &[p, a, b], Dtype::FP32, &raw);
        let dst = core.ndarray(&[p, kept], Dtype::FP32, Space::Sbuf).unwrap();
        core.tensor_reduce(&dst, op, &src, &axes, negate, false)
            .unwrap();
        let got = read(&core, &dst);
        let group = a * b / kept;
        for c in 0..p {
            for j in 0..kept {
                let start = c * a * b + j * group;
                let mut v = fold(op, &xs[start..start + group]);
                if negate {
                    v = -v;
                }
                assert_eq!(got[c * kept + j], v.to_bits(), "{axes:?} {op} p{c} j{j}");
            }
        }
    }
    let mut core = Core::new(Gen::Cayman);
    let src = core.ndarray(&[4, 3, 5], Dtype::FP32, Space::Sbuf).unwrap();
    let dst = core.ndarray(&[4, 3], Dtype::FP32, Space::Sbuf).unwrap();
    let e = core
        .tensor_reduce(&dst, AluOp::ADD, &src, &[1], false, false)
        .unwrap_err();
    assert!(
        matches!(
            e,
            NkiError::Value {
                argument: "axis",
                ..
            }
        ),
        "{e}"
    );
}

// §2.4 / §3.4: merge, both polarities; tile and scalar sources.
#[test]
fn tensor_copy_predicated_tile_and_scalar() {
    let (p, f) = (8usize, 16usize);
    let pred: Vec<u32> = (0..p * f).map(|i| ((i * 5) % 3 == 0) as u32 * 7).collect();
    let data: Vec<u32> = (0..p * f).map(|i| (i as f32 + 0.5).to_bits()).collect();
    let old: Vec<u32> = (0..p * f).map(|i| (-(i as f32)).to_bits()).collect();
    for reverse in [false, true] {
        let mut core = Core::new(Gen::Cayman);
        let tp = tile(&mut core, &[p, f], Dtype::UINT8, &pred);
        let td = tile(&mut core, &[p, f], Dtype::FP32, &data);
        let dst = tile(&mut core, &[p, f], Dtype::FP32, &old);
        if reverse {
            let e = core
                .tensor_copy_predicated(&dst, &Operand::Tile(td.clone()), &tp, true)
                .unwrap_err();
            assert!(matches!(e, NkiError::NotSupported { .. }), "{e}");
        } else {
            core.tensor_copy_predicated(&dst, &Operand::Tile(td.clone()), &tp, false)
                .unwrap();
            let want: Vec<u32> = (0..p * f)
                .map(|i| if pred[i] != 0 { data[i] } else { old[i] })
                .collect();
            assert_eq!(read(&core, &dst), want);
        }
        // Scalar source: −inf where selected.
        let dst = tile(&mut core, &[p, f], Dtype::FP32, &old);
        core.tensor_copy_predicated(&dst, &Operand::Imm(f64::NEG_INFINITY), &tp, reverse)
            .unwrap();
        let want: Vec<u32> = (0..p * f)
            .map(|i| {
                if (pred[i] != 0) != reverse {
                    f32::NEG_INFINITY.to_bits()
                } else {
                    old[i]
                }
            })
            .collect();
        assert_eq!(read(&core, &dst), want, "reverse {reverse}");
    }
}

// §15 / Q21: a 32 × 32 transpose on the Vector engine.
#[test]
fn nc_transpose_vector_32x32() {
    let xs: Vec<u32> = (0..32 * 32).map(|i| i as u32 * 3 + 1).collect();
    let mut core = Core::new(Gen::Cayman);
    let src = tile(&mut core, &[32, 32], Dtype::BFLOAT16, &xs);
    let dst = core
        .ndarray(&[32, 32], Dtype::BFLOAT16, Space::Sbuf)
        .unwrap();
    core.nc_transpose(&dst, &src, NkiEngine::Vector).unwrap();
    let got = read(&core, &dst);
    for r in 0..32 {
        for c in 0..32 {
            assert_eq!(got[r * 32 + c], xs[c * 32 + r], "[{r}, {c}]");
        }
    }
    let small = core
        .ndarray(&[16, 16], Dtype::BFLOAT16, Space::Sbuf)
        .unwrap();
    let e = core
        .nc_transpose(&small, &small, NkiEngine::Vector)
        .unwrap_err();
    assert!(matches!(e, NkiError::NotSupported { .. }), "{e}");
    let e = core
        .nc_transpose(&dst, &src, NkiEngine::Tensor)
        .unwrap_err();
    assert!(matches!(e, NkiError::NotSupported { .. }), "{e}");
}

/// The partition slice `start:stop`.
fn partitions(start: i64, stop: i64) -> Index {
    Index::Slice {
        start: Some(start),
        stop: Some(stop),
        step: None,
    }
}

// §14.1 / Q20 (assumption `stream-shuffle-mask`): LoadMaskSelect then StreamShuffle; dst
// partition i of each quadrant takes src partition mask[i]; 255 keeps it.
#[test]
fn nc_stream_shuffle_permutes_each_quadrant() {
    let mut core = Core::new(Gen::Cayman);
    let xs: Vec<u32> = (0..64 * 3).map(|i| 0x4000_0000 + i).collect();
    let src = tile(&mut core, &[64, 3], Dtype::FP32, &xs);
    let old: Vec<u32> = (0..64 * 3).map(|i| 0x1000 + i).collect();
    let dst = tile(&mut core, &[64, 3], Dtype::FP32, &old);
    let mut mask: Vec<i64> = (0..32).rev().collect();
    mask[5] = 255;
    let steps = core.nc_stream_shuffle(&dst, &src, &mask).unwrap();
    assert_eq!(steps.len(), 2, "LoadMaskSelect, StreamShuffle");
    let got = read(&core, &dst);
    for p in 0..64 {
        let want = match mask[p % 32] {
            255 => &old[p * 3..p * 3 + 3],
            m => &xs[(p / 32 * 32 + m as usize) * 3..][..3],
        };
        assert_eq!(&got[p * 3..p * 3 + 3], want, "partition {p}");
    }
    // In place: a rotation reads every partition before writing.
    let rot: Vec<i64> = (0..32).map(|i| (i + 1) % 32).collect();
    core.nc_stream_shuffle(&src, &src, &rot).unwrap();
    let got = read(&core, &src);
    for p in 0..64 {
        let from = p / 32 * 32 + (p + 1) % 32;
        assert_eq!(
            &got[p * 3..p * 3 + 3],
            &xs[from * 3..from * 3 + 3],
            "partition {p}"
        );
    }
}

// nki-api §3 (A = ceil(max(src_P, dst_P)/32)·32): a dst of 40 partitions, a view of a
// 64-partition tile, is shuffled without touching partitions 40..63 (tpb's second pair
// masks the lanes past dst with 255).
#[test]
fn nc_stream_shuffle_partial_quadrant_writes_only_dst() {
    let mut core = Core::new(Gen::Mariana);
    let xs: Vec<u32> = (0..40 * 2).map(|i| 7000 + i).collect();
    let src = tile(&mut core, &[40, 2], Dtype::INT32, &xs);
    let old: Vec<u32> = (0..64 * 2).map(|i| 100 + i).collect();
    let whole = tile(&mut core, &[64, 2], Dtype::INT32, &old);
    let dst = whole.index(&[partitions(0, 40), Index::Ellipsis]).unwrap();
    let mask: Vec<i64> = (0..32).map(|i| if i < 8 { 7 - i } else { i }).collect();
    let steps = core.nc_stream_shuffle(&dst, &src, &mask).unwrap();
    assert_eq!(
        steps.len(),
        4,
        "a pair for quadrant 0, a pair for the partial quadrant"
    );
    let got = read(&core, &whole);
    for p in 0..64 {
        let want = if p < 40 {
            let from = p / 32 * 32 + mask[p % 32] as usize;
            &xs[from * 2..from * 2 + 2]
        } else {
            &old[p * 2..p * 2 + 2]
        };
        assert_eq!(&got[p * 2..p * 2 + 2], want, "partition {p}");
    }
    // Broadcast partition 0 of a 1-partition src to 32 partitions.
    let one = tile(&mut core, &[1, 2], Dtype::INT32, &[5, 6]);
    let wide = tile(&mut core, &[32, 2], Dtype::INT32, &[0; 64]);
    core.nc_stream_shuffle(&wide, &one, &[0; 32]).unwrap();
    assert_eq!(read(&core, &wide), [5, 6].repeat(32));
}

// The clauses nc_stream_shuffle refuses, each naming its argument; nothing is emitted.
#[test]
fn nc_stream_shuffle_refusals() {
    let mut core = Core::new(Gen::Cayman);
    let a = core.ndarray(&[32, 4], Dtype::FP32, Space::Sbuf).unwrap();
    let b = core.ndarray(&[32, 4], Dtype::FP32, Space::Sbuf).unwrap();
    let ident: Vec<i64> = (0..32).collect();
    let value = |e: NkiError| {
        matches!(
            e,
            NkiError::Value {
                argument: "shuffle_mask",
                ..
            }
        )
    };
    assert!(value(
        core.nc_stream_shuffle(&a, &b, &ident[..31]).unwrap_err()
    ));
    let mut bad = ident.clone();
    bad[3] = 32;
    assert!(value(core.nc_stream_shuffle(&a, &b, &bad).unwrap_err()));
    bad[3] = -1;
    assert!(value(core.nc_stream_shuffle(&a, &b, &bad).unwrap_err()));
    // A lane reading past src's 8 partitions into dst.
    let small = core.ndarray(&[8, 4], Dtype::FP32, Space::Sbuf).unwrap();
    let e = core.nc_stream_shuffle(&a, &small, &ident).unwrap_err();
    assert!(value(e));
    // Dtype and element count.
    let h = core
        .ndarray(&[32, 4], Dtype::BFLOAT16, Space::Sbuf)
        .unwrap();
    let e = core.nc_stream_shuffle(&a, &h, &ident).unwrap_err();
    assert!(matches!(e, NkiError::Shape { .. }), "{e}");
    let c = core.ndarray(&[32, 5], Dtype::FP32, Space::Sbuf).unwrap();
    let e = core.nc_stream_shuffle(&a, &c, &ident).unwrap_err();
    assert!(matches!(e, NkiError::Shape { .. }), "{e}");
    // A = 64 must start at 0 or 64.
    let big = core.ndarray(&[128, 4], Dtype::FP32, Space::Sbuf).unwrap();
    let mid = big.index(&[partitions(32, 96), Index::Ellipsis]).unwrap();
    let e = core.nc_stream_shuffle(&mid, &mid, &ident).unwrap_err();
    assert!(e.to_string().contains("start"), "{e}");
    assert!(core.bundles().is_empty(), "nothing emitted");
}
