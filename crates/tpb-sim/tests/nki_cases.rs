//! The nki-library parameterisations of AffineSelect (nki-semantics §1.1 table), with
//! expectations checked by hand: the causal mask, a sliding-window band and an identity
//! matrix built with EQ.
#![allow(clippy::needless_range_loop)] // plain index loops read like the expectations

mod support;

use support::*;
use tpb_isa::geometry::Space;
use tpb_isa::wire::DtypePair;
use tpb_isa::{AffineSelectCmp, Body, Dtype, Gen, Instruction};
use tpb_sim::{Config, Machine};

const FP32_MIN_BITS: u32 = 0xFF7F_FFFF; // -3.4028235e38

/// AffineSelect over a [p, F] fp32 tile at SBUF offset 0 (in place unless `dst_off`).
#[allow(clippy::too_many_arguments)]
fn affine(
    gen: Gen,
    n: u8,
    f: u16,
    base: i32,
    step: i16,
    cm: i32,
    cmp: AffineSelectCmp,
    fill_reg: u8,
    out: Dtype,
    dst_off: u32,
) -> Instruction {
    let mut i = inst(0x92, gen);
    let Body::S2d2TsAs(s) = &mut i.body else {
        unreachable!()
    };
    s.num_active_channels = n;
    s.in_out_dtype = DtypePair::new(Dtype::FP32, out);
    s.fill_mode = cmp;
    s.fill_reg = fill_reg;
    s.mask_pattern = data4d(base, &[(step, f)]);
    s.src_mem_pattern = tensor(sbuf(gen, 0, 0), &[(1, f)]);
    s.dst_mem_pattern = tensor(sbuf(gen, 0, dst_off), &[(1, f)]);
    s.channel_multiplier = cm;
    i
}

fn tile(rows: u32, f: u16) -> Vec<Vec<f32>> {
    (0..rows)
        .map(|p| (0..f).map(|x| (p * 1000 + u32::from(x)) as f32).collect())
        .collect()
}

#[test]
fn causal_mask_keeps_q_ge_k_in_place() {
    for gen in Gen::ALL {
        let (n, f) = (128u32, 160u16);
        let mut m = Machine::new(Config::new(gen));
        write_rows(
            &mut m,
            Space::Sbuf,
            0,
            0,
            Dtype::FP32,
            &f32_rows(&tile(n, f)),
        );
        m.set_register(7, FP32_MIN_BITS).unwrap();
        // attention_cte.py: pattern [[-1, F]], offset q0 - k0, channel_multiplier 1, GE.
        let i = affine(
            gen,
            n as u8,
            f,
            0,
            -1,
            1,
            AffineSelectCmp::GREATER_THAN_EQ,
            7,
            Dtype::FP32,
            0,
        );
        let r = m.step(&i).unwrap();
        assert_eq!(r.elements, u64::from(n) * u64::from(f));
        assert!(r.warnings.is_empty(), "{:?}", r.warnings);
        let got = read_rows(&m, Space::Sbuf, 0, n, 0, Dtype::FP32, u64::from(f));
        for p in 0..n as usize {
            for x in 0..f as usize {
                let want = if x <= p {
                    ((p * 1000 + x) as f32).to_bits()
                } else {
                    FP32_MIN_BITS
                };
                assert_eq!(got[p][x], want, "{gen} p{p} x{x}");
            }
        }
        // Spot checks written out by hand: row 0 keeps only x = 0; row 3 keeps 0..=3.
        assert_eq!(got[0][0], 0f32.to_bits());
        assert_eq!(got[0][1], FP32_MIN_BITS);
        assert_eq!(got[3][3], 3003f32.to_bits());
        assert_eq!(got[3][4], FP32_MIN_BITS);
    }
}

#[test]
fn causal_mask_with_offset_and_bf16_output_fills_minus_inf() {
    let gen = Gen::Cayman;
    let (n, f) = (8u32, 8u16);
    let mut m = Machine::new(Config::new(gen));
    write_rows(
        &mut m,
        Space::Sbuf,
        0,
        0,
        Dtype::FP32,
        &f32_rows(&tile(n, f)),
    );
    m.set_register(0, FP32_MIN_BITS).unwrap();
    // k0 = q0 + 2: offset q0 - k0 = -2 keeps x <= p - 2. Output bf16 at byte 0x1000.
    let i = affine(
        gen,
        n as u8,
        f,
        -2,
        -1,
        1,
        AffineSelectCmp::GREATER_THAN_EQ,
        0,
        Dtype::BFLOAT16,
        0x1000,
    );
    m.step(&i).unwrap();
    let got = read_rows(&m, Space::Sbuf, 0, n, 0x1000, Dtype::BFLOAT16, u64::from(f));
    // FP32_MIN rounds to -inf in bf16 (NKI range_select note; decisions §4.10).
    assert_eq!(got[0], vec![0xFF80; 8]);
    assert_eq!(got[1], vec![0xFF80; 8]);
    // Row 2 keeps x = 0: 2000.0 is exact in bf16 (0x44FA).
    assert_eq!(got[2][0], 0x44FA);
    assert_eq!(got[2][1], 0xFF80);
    // Row 7 keeps x = 0..=5: 7005.0 rounds to 7008.0 in bf16 (0x45DB).
    assert_eq!(got[7][5], 0x45DB);
    assert_eq!(got[7][6], 0xFF80);
}

#[test]
fn sliding_window_band_from_two_instructions() {
    let gen = Gen::Mariana;
    let (n, f, w) = (16u32, 16u16, 4i32);
    let mut m = Machine::new(Config::new(gen));
    write_rows(
        &mut m,
        Space::Sbuf,
        0,
        0,
        Dtype::FP32,
        &f32_rows(&tile(n, f)),
    );
    m.set_register(1, FP32_MIN_BITS).unwrap();
    let ge = AffineSelectCmp::GREATER_THAN_EQ;
    // Causal, then the sliding-window lower band: pattern [[1, F]], offset k0 + W - 1 - q0,
    // channel_multiplier -1, GE: keeps x >= p - (W - 1).
    let causal = affine(gen, n as u8, f, 0, -1, 1, ge, 1, Dtype::FP32, 0);
    let band = affine(gen, n as u8, f, w - 1, 1, -1, ge, 1, Dtype::FP32, 0);
    let rep = m.run(&[causal, band]).unwrap();
    assert_eq!(rep.instructions(), 2);
    let got = read_rows(&m, Space::Sbuf, 0, n, 0, Dtype::FP32, u64::from(f));
    for p in 0..n as i32 {
        for x in 0..i32::from(f) {
            let keep = x <= p && x >= p - (w - 1);
            let want = if keep {
                ((p * 1000 + x) as f32).to_bits()
            } else {
                FP32_MIN_BITS
            };
            assert_eq!(got[p as usize][x as usize], want, "p{p} x{x}");
        }
    }
    // Row 5 by hand: keeps x = 2, 3, 4, 5.
    let kept: Vec<usize> = (0..16).filter(|&x| got[5][x] != FP32_MIN_BITS).collect();
    assert_eq!(kept, vec![2, 3, 4, 5]);
}

#[test]
fn identity_matrix_via_eq() {
    for gen in Gen::ALL {
        let nn = 64u16;
        let mut m = Machine::new(Config::new(gen));
        // memset 1.0, then keep x - p == 0 and fill 0.0 (cascaded_max.py).
        let ones = vec![vec![1f32; nn as usize]; nn as usize];
        write_rows(&mut m, Space::Sbuf, 0, 0, Dtype::FP32, &f32_rows(&ones));
        m.set_register(2, 0f32.to_bits()).unwrap();
        let i = affine(
            gen,
            nn as u8,
            nn,
            0,
            1,
            -1,
            AffineSelectCmp::EQ,
            2,
            Dtype::FP32,
            0,
        );
        m.step(&i).unwrap();
        let got = read_rows(
            &m,
            Space::Sbuf,
            0,
            u32::from(nn),
            0,
            Dtype::FP32,
            u64::from(nn),
        );
        for p in 0..nn as usize {
            for x in 0..nn as usize {
                let want = if p == x { 1f32 } else { 0f32 };
                assert_eq!(got[p][x], want.to_bits(), "{gen} {p} {x}");
            }
        }
    }
}

#[test]
fn identity_into_int8_keeps_bits_through_fp32() {
    // fp32 1.0 → int8 1 (RNE), fill 0.0 → 0; different dtypes convert through FP32.
    let gen = Gen::Sunda;
    let mut m = Machine::new(Config::new(gen));
    let ones = vec![vec![1f32; 4]; 4];
    write_rows(&mut m, Space::Sbuf, 0, 0, Dtype::FP32, &f32_rows(&ones));
    m.set_register(3, 0f32.to_bits()).unwrap();
    let i = affine(
        gen,
        4,
        4,
        0,
        1,
        -1,
        AffineSelectCmp::EQ,
        3,
        Dtype::INT8,
        0x800,
    );
    m.step(&i).unwrap();
    let got = read_rows(&m, Space::Sbuf, 0, 4, 0x800, Dtype::INT8, 4);
    assert_eq!(
        got,
        vec![
            vec![1, 0, 0, 0],
            vec![0, 1, 0, 0],
            vec![0, 0, 1, 0],
            vec![0, 0, 0, 1]
        ]
    );
}
