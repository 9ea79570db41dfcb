//! NKI-shaped calls against plain reference loops (nki-semantics §1.1–§1.4 as restated in
//! docs/reference/nki-calls.md), and their error paths: nothing emitted, no state changed.

use tpb_isa::geometry::Space;
use tpb_isa::{AluOp, Body, Dtype, Gen};
use tpb_nki::{Cmp, Core, NkiError, Operand, Tile};

const FP32_MIN: f32 = -3.402_823_5e38;

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn filled(core: &mut Core, shape: &[usize], f: impl Fn(usize, usize) -> f32) -> Tile {
    let t = core.ndarray(shape, Dtype::FP32, Space::Sbuf).unwrap();
    let n = t.free_elements() as usize;
    let v: Vec<f32> = (0..t.partitions() as usize * n)
        .map(|i| f(i / n, i % n))
        .collect();
    core.write(&t, &f32_bytes(&v)).unwrap();
    t
}

/// nki-library attention_cte: pattern [[-1, F]], offset q0 - k0, channel_multiplier 1, GE.
#[test]
fn causal_mask_matches_the_reference_loop_on_every_generation() {
    for gen in Gen::ALL {
        let mut core = Core::new(gen);
        let (p, f) = (64usize, 96usize);
        let scores = filled(&mut core, &[p, f], |r, c| (r * 1000 + c) as f32);
        let out = core.ndarray(&[p, f], Dtype::FP32, Space::Sbuf).unwrap();
        let offset = -3i64; // q0 - k0
        core.affine_select(
            &out,
            &[[-1, f as i64]],
            1,
            &scores,
            f64::from(FP32_MIN),
            Cmp::GreaterEqual,
            offset,
        )
        .unwrap();
        let got = f32s(&core.read(&out).unwrap());
        for r in 0..p {
            for c in 0..f {
                let v = offset + r as i64 - c as i64;
                let want = if v >= 0 {
                    (r * 1000 + c) as f32
                } else {
                    FP32_MIN
                };
                assert_eq!(got[r * f + c].to_bits(), want.to_bits(), "{gen} p{r} x{c}");
            }
        }
        // One real bundle, valid for the generation, reading its fill from a register.
        assert_eq!(core.program().len(), 1);
        let Body::S2d2TsAs(b) = &core.program()[0].body else {
            panic!("not an AffineSelect body")
        };
        assert_eq!(
            core.machine().registers()[usize::from(b.fill_reg)],
            FP32_MIN.to_bits()
        );
        assert!(
            core.disasm().contains(".reg 63 = 0xff7fffff"),
            "{}",
            core.disasm()
        );
    }
}

/// nki-semantics §1.2: `iota(ub, pattern=[[T, n]], offset=1, channel_multiplier=1)` writes
/// `p + T*j + 1`.
#[test]
fn iota_writes_the_affine_ramp() {
    let mut core = Core::new(Gen::Cayman);
    let (p, n, t) = (16usize, 8usize, 5i64);
    let out = core.ndarray(&[p, n], Dtype::INT32, Space::Sbuf).unwrap();
    core.iota(&out, &[[t, n as i64]], 1, 1).unwrap();
    let got: Vec<i32> = core
        .read(&out)
        .unwrap()
        .chunks_exact(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    for r in 0..p {
        for j in 0..n {
            assert_eq!(got[r * n + j] as i64, r as i64 + t * j as i64 + 1);
        }
    }
}

/// nki-semantics §1.3: `e * f[:, 0] + 2.5` with `f` a (P, 1) per-partition operand; FP32
/// math (each stage rounded to FP32), reversed subtract `1.0 - x`.
#[test]
fn tensor_scalar_with_pointer_and_immediate_operands() {
    let mut core = Core::new(Gen::Cayman);
    let (p, n) = (8usize, 33usize);
    let e = filled(&mut core, &[p, n], |r, c| {
        (r as f32 - 3.5) * (c as f32 + 0.25)
    });
    let fcol = filled(&mut core, &[p, 1], |r, _| 1.0 / (r as f32 + 3.0));
    let out = core.ndarray(&[p, n], Dtype::FP32, Space::Sbuf).unwrap();
    core.tensor_scalar(
        &out,
        &e,
        AluOp::MULT,
        Some(&Operand::Tile(fcol.clone())),
        false,
        Some(AluOp::ADD),
        Some(&Operand::Imm(2.5)),
        false,
    )
    .unwrap();
    let ev = f32s(&core.read(&e).unwrap());
    let fv = f32s(&core.read(&fcol).unwrap());
    let got = f32s(&core.read(&out).unwrap());
    for r in 0..p {
        for c in 0..n {
            let want = ev[r * n + c] * fv[r] + 2.5f32;
            assert_eq!(got[r * n + c].to_bits(), want.to_bits(), "p{r} x{c}");
        }
    }
    // reverse0: 1.0 - x
    let rev = core.ndarray(&[p, n], Dtype::FP32, Space::Sbuf).unwrap();
    core.tensor_scalar(
        &rev,
        &e,
        AluOp::SUBTRACT,
        Some(&Operand::Imm(1.0)),
        true,
        None,
        None,
        false,
    )
    .unwrap();
    let got = f32s(&core.read(&rev).unwrap());
    for (g, x) in got.iter().zip(&ev) {
        assert_eq!(g.to_bits(), (1.0f32 - x).to_bits());
    }
}

#[test]
fn bitvec_tensor_scalar_works_on_integer_bits() {
    let mut core = Core::new(Gen::Cayman);
    let t = core.ndarray(&[4, 4], Dtype::UINT32, Space::Sbuf).unwrap();
    let v: Vec<u32> = (0..16).map(|i| 0xF0F0_0000 | i).collect();
    core.write(
        &t,
        &v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<_>>(),
    )
    .unwrap();
    let out = core.ndarray(&[4, 4], Dtype::UINT32, Space::Sbuf).unwrap();
    core.tensor_scalar(
        &out,
        &t,
        AluOp::BITWISE_AND,
        Some(&Operand::Imm(255.0)),
        false,
        None,
        None,
        false,
    )
    .unwrap();
    assert_eq!(
        core.program()[0].opcode().0,
        0x53,
        "bitvec ops emit TensorScalarBitvec"
    );
    let got: Vec<u32> = core
        .read(&out)
        .unwrap()
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    assert_eq!(got, (0..16).collect::<Vec<u32>>());
}

/// nki-semantics §1.4: keep `range_start + k` within the bounds, FP32_MIN elsewhere.
#[test]
fn range_select_keeps_the_index_band() {
    let mut core = Core::new(Gen::Cayman);
    let (p, n) = (4usize, 16usize);
    let src = filled(&mut core, &[p, n], |r, c| (r * 100 + c) as f32);
    let lo = filled(&mut core, &[p, 1], |r, _| r as f32 + 2.0);
    let out = core.ndarray(&[p, n], Dtype::FP32, Space::Sbuf).unwrap();
    core.range_select(
        &out,
        &src,
        Cmp::GreaterEqual,
        Cmp::Less,
        &Operand::Tile(lo),
        &Operand::Imm(9.0),
        1.0,
        f64::from(FP32_MIN),
        "idle",
    )
    .unwrap();
    let got = f32s(&core.read(&out).unwrap());
    for r in 0..p {
        for k in 0..n {
            let x = 1.0 + k as f32;
            let keep = x >= r as f32 + 2.0 && x < 9.0;
            let want = if keep { (r * 100 + k) as f32 } else { FP32_MIN };
            assert_eq!(got[r * n + k].to_bits(), want.to_bits(), "p{r} k{k}");
        }
    }
}

#[test]
fn select_picks_per_partition() {
    let mut core = Core::new(Gen::Cayman);
    let src = filled(&mut core, &[4, 3], |r, c| (r * 10 + c) as f32);
    let pred = core.ndarray(&[4, 1], Dtype::UINT32, Space::Sbuf).unwrap();
    core.write(&pred, &[1, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0])
        .unwrap();
    let out = core.ndarray(&[4, 3], Dtype::FP32, Space::Sbuf).unwrap();
    core.select(&out, &Operand::Tile(pred), &src, &Operand::Imm(-1.5), false)
        .unwrap();
    let got = f32s(&core.read(&out).unwrap());
    for r in 0..4 {
        for c in 0..3 {
            let want = if r % 2 == 0 {
                (r * 10 + c) as f32
            } else {
                -1.5
            };
            assert_eq!(got[r * 3 + c], want, "p{r} x{c}");
        }
    }
}

/// Snapshot of everything a failed call could have touched.
fn snapshot(core: &Core, tiles: &[&Tile]) -> (Vec<Vec<u8>>, Vec<u32>, usize) {
    let mem = tiles.iter().map(|t| core.read(t).unwrap()).collect();
    (
        mem,
        core.machine().registers().to_vec(),
        core.program().len(),
    )
}

#[test]
fn an_invalid_instruction_is_refused_before_it_runs() {
    // seed 002 / isa-facts §9: AffineSelect is SBUF-only from cayman on.
    let mut core = Core::new(Gen::Cayman);
    let src = filled(&mut core, &[4, 8], |r, c| (r + c) as f32);
    let dst = core.ndarray(&[4, 8], Dtype::FP32, Space::Psum).unwrap();
    let before = snapshot(&core, &[&src, &dst]);
    let e = core
        .affine_select(&dst, &[[1, 8]], 0, &src, -7.0, Cmp::Greater, 0)
        .unwrap_err();
    let NkiError::Invalid { report, .. } = &e else {
        panic!("{e:?}")
    };
    assert!(report.failures().count() >= 1);
    assert!(e.to_string().contains("invalid on cayman"), "{e}");
    assert_eq!(
        snapshot(&core, &[&src, &dst]),
        before,
        "state or program changed"
    );
    assert!(
        !core.disasm().contains(".reg"),
        "the fill register stays unplaced"
    );
    // The same call is valid on sunda (PSUM allowed there).
    let mut sunda = Core::new(Gen::Sunda);
    let src = filled(&mut sunda, &[4, 8], |r, c| (r + c) as f32);
    let dst = sunda.ndarray(&[4, 8], Dtype::FP32, Space::Psum).unwrap();
    sunda
        .affine_select(&dst, &[[1, 8]], 0, &src, -7.0, Cmp::Greater, 0)
        .unwrap();
}

#[test]
fn divide_is_rejected_by_the_validator() {
    // isa-facts §7 tensor_scalar_valid_ops: neither op is Divide, Pow or Mod.
    let mut core = Core::new(Gen::Cayman);
    let t = filled(&mut core, &[2, 2], |_, _| 1.0);
    let e = core
        .tensor_scalar(
            &t,
            &t,
            AluOp::DIVIDE,
            Some(&Operand::Imm(2.0)),
            false,
            None,
            None,
            false,
        )
        .unwrap_err();
    assert!(matches!(e, NkiError::Invalid { .. }), "{e:?}");
    assert!(core.program().is_empty());
}

#[test]
fn forms_without_an_encoding_are_not_supported() {
    let mut core = Core::new(Gen::Cayman);
    let t = filled(&mut core, &[2, 2], |_, _| 1.0);
    let e = core
        .affine_select(&t, &[[1, 2]], 0, &t, 0.0, Cmp::Less, 0)
        .unwrap_err();
    assert!(
        e.to_string()
            .starts_with("not supported: affine_select cmp_op=less"),
        "{e}"
    );
    let b = Operand::Imm(1.0);
    let e = core
        .range_select(
            &t,
            &t,
            Cmp::Greater,
            Cmp::Less,
            &b,
            &b,
            0.0,
            f64::from(FP32_MIN),
            "max",
        )
        .unwrap_err();
    assert!(matches!(e, NkiError::NotSupported { .. }), "{e:?}");
    let mut sunda = Core::new(Gen::Sunda);
    let t = filled(&mut sunda, &[2, 2], |_, _| 1.0);
    let e = sunda
        .range_select(
            &t,
            &t,
            Cmp::Greater,
            Cmp::Less,
            &b,
            &b,
            0.0,
            f64::from(FP32_MIN),
            "idle",
        )
        .unwrap_err();
    assert!(
        e.to_string()
            .contains("RangeSelect (0xbc) does not exist on sunda"),
        "{e}"
    );
}

#[test]
fn bad_shapes_patterns_and_values_are_clear_errors() {
    let mut core = Core::new(Gen::Cayman);
    assert!(core.ndarray(&[129, 4], Dtype::FP32, Space::Sbuf).is_err());
    assert!(core.ndarray(&[], Dtype::FP32, Space::Sbuf).is_err());
    assert!(core.ndarray(&[4, 0], Dtype::FP32, Space::Sbuf).is_err());
    let e = core
        .ndarray(&[128, 1 << 20], Dtype::FP32, Space::Sbuf)
        .unwrap_err();
    assert!(matches!(e, NkiError::OutOfMemory { .. }), "{e}");
    let t = filled(&mut core, &[2, 4], |_, _| 0.0);
    let five = [[1, 1]; 5];
    assert!(matches!(
        core.iota(&t, &five, 0, 0),
        Err(NkiError::Pattern { .. })
    ));
    assert!(matches!(
        core.iota(&t, &[[40000, 4]], 0, 0),
        Err(NkiError::Pattern { .. })
    ));
    assert!(matches!(
        core.iota(&t, &[[1, 0]], 0, 0),
        Err(NkiError::Pattern { .. })
    ));
    let e = core
        .affine_select(&t, &[[1, 4]], 0, &t, 1e39, Cmp::Equal, 0)
        .unwrap_err();
    assert!(e.to_string().contains("outside the float32 range"), "{e}");
    let other = filled(&mut core, &[3, 4], |_, _| 0.0);
    assert!(matches!(
        core.affine_select(&t, &[[1, 4]], 0, &other, 0.0, Cmp::Equal, 0),
        Err(NkiError::Shape { .. })
    ));
    // An element-count mismatch is the validator's d4_iota_same_src_dst_count.
    assert!(matches!(
        core.iota(&t, &[[1, 3]], 0, 0),
        Err(NkiError::Invalid { .. })
    ));
    assert!(core.program().is_empty());
}

#[test]
fn emitted_bundles_decode_back_to_the_program() {
    let mut core = Core::new(Gen::Cayman);
    let t = core.ndarray(&[8, 8], Dtype::FP32, Space::Sbuf).unwrap();
    core.iota(&t, &[[1, 8]], 0, 8).unwrap();
    core.affine_select(
        &t,
        &[[-1, 8]],
        1,
        &t,
        f64::from(FP32_MIN),
        Cmp::GreaterEqual,
        0,
    )
    .unwrap();
    let bytes = core.bundles();
    assert_eq!(bytes.len(), 128);
    let decoded = tpb_isa::decode_program(&bytes, Gen::Cayman).unwrap();
    assert_eq!(decoded, core.program());
    // The text form assembles to the same bundles (`.reg` lines are a caller directive).
    let opts = tpb_isa::text::AsmOptions::new(Gen::Cayman).allow_directive("reg");
    let a = tpb_isa::text::asm(&core.disasm(), &opts).unwrap();
    assert_eq!(a.to_bytes(), bytes);
    // Descriptors are the packer's: a contiguous 8-element row, 8 partitions.
    let Body::D4Iota(b) = &core.program()[0].body else {
        panic!()
    };
    assert_eq!(b.num_active_channels, 8);
    assert_eq!(b.dst_mem_pattern.num_elem, [8, 1, 1, 1]);
}

#[test]
fn select_refuses_a_cast_it_cannot_encode() {
    // isa-facts §10.1: one dtype for src0, src1 and dst; a bf16 dst of an fp32 source would
    // receive fp32 rows and overrun the tile.
    let mut core = Core::new(Gen::Cayman);
    let src = filled(&mut core, &[4, 8], |_, _| 1.0);
    let dst = core.ndarray(&[4, 8], Dtype::BFLOAT16, Space::Sbuf).unwrap();
    let e = core
        .select(&dst, &Operand::Imm(1.0), &src, &Operand::Imm(0.0), false)
        .unwrap_err();
    assert!(e.to_string().contains("without a cast"), "{e}");
    assert!(core.program().is_empty());
}

#[test]
fn the_constant_registers_are_not_the_users() {
    let mut core = Core::new(Gen::Cayman);
    let t = filled(&mut core, &[2, 2], |r, c| (r + c) as f32);
    core.affine_select(&t, &[[1, 2]], 0, &t, -5.0, Cmp::Greater, 0)
        .unwrap();
    let e = core.set_register(63, 0).unwrap_err(); // would clobber the fill
    assert_eq!(
        e.to_string(),
        "register: register 63 is reserved for the constants tpb.nki calls place \
         (registers 32..=63); use 0..32"
    );
    assert!(core.set_register(32, 0).is_err());
    core.set_register(31, 7).unwrap();
    assert_eq!(core.machine().registers()[31], 7);
}

#[test]
fn gpsimd_calls_and_allocation_respect_the_memories() {
    // Maverick has no PSUM (isa-facts §11): allocation fails up front.
    let mut mav = Core::new(Gen::Maverick);
    let e = mav.ndarray(&[2, 2], Dtype::FP32, Space::Psum).unwrap_err();
    assert!(matches!(e, NkiError::OutOfMemory { total: 0, .. }), "{e}");
    // NKI: iota's dst must be SBUF (GpSimd cannot access PSUM), though the ISA allows it.
    let mut core = Core::new(Gen::Cayman);
    let p = core.ndarray(&[2, 4], Dtype::FP32, Space::Psum).unwrap();
    let e = core.iota(&p, &[[1, 4]], 0, 0).unwrap_err();
    assert!(e.to_string().contains("SBUF tiles only"), "{e}");
}

#[test]
fn large_free_sizes_split_into_descriptor_words() {
    // 70000 bytes per partition: one count word cannot hold it; the split keeps the step
    // within the signed 16-bit word (seed 001).
    let mut core = Core::new(Gen::Cayman);
    let t = core
        .ndarray(&[2, 70000], Dtype::UINT8, Space::Sbuf)
        .unwrap();
    core.iota(&t, &[[0, 2], [0, 35000]], 3, 1).unwrap();
    let got = core.read(&t).unwrap();
    assert!(got[..70000].iter().all(|&b| b == 3));
    assert!(got[70000..].iter().all(|&b| b == 4));
}

// A masked call's on-chip destination: the elements its mask leaves out are declared written
// without a value (docs/python.md "Masks"), so an unmasked read of the whole tile is not an
// uninitialised read; the scheduled re-run marks them too. HBM is left alone.
#[test]
fn masked_out_elements_are_dont_care_on_chip_only() {
    let mut c = tpb_sim::Config::new(Gen::Cayman);
    c.strict = true;
    let mut core = Core::with_config(c);
    let t = core.ndarray(&[4, 8], Dtype::FP32, Space::Sbuf).unwrap();
    let out = core.ndarray(&[4, 8], Dtype::FP32, Space::Sbuf).unwrap();
    let err = core.tensor_copy(&out, &t, tpb_nki::NkiEngine::Unknown);
    assert!(matches!(err, Err(NkiError::Fault(_))), "{err:?}");
    core.mark_masked_out(&t).unwrap();
    core.tensor_copy(&out, &t, tpb_nki::NkiEngine::Unknown)
        .unwrap();
    let (m, run) = core
        .schedule(&tpb_sim::engines::EngineOptions::default(), |_, _| {})
        .unwrap();
    assert!(run.races.is_empty());
    assert_eq!(core.first_difference(&m), None);
    let h = core.ndarray(&[4, 8], Dtype::FP32, Space::Hbm).unwrap();
    core.mark_masked_out(&h).unwrap();
    let back = core.ndarray(&[4, 8], Dtype::FP32, Space::Sbuf).unwrap();
    assert!(core.dma_copy(&back, &h, None, None).is_err());
}
