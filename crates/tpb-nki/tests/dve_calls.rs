//! The issue-17b NKI calls against plain reference loops written from the NKI 0.6.0
//! semantics (docs/reference/nki-calls.md) and the sheet's execution models
//! (isa-facts-dve-pool §9–§13), and their refusals: nothing emitted, no state changed.

use tpb_isa::geometry::Space;
use tpb_isa::{AluOp, Dtype, Gen};
use tpb_nki::{Core, NkiError, Operand, ReduceCmd, Tile};

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

fn val(r: usize, c: usize) -> f32 {
    ((r * 37 + c * 11) % 23) as f32 - 11.0
}

// NKI: dst = (data op0 operand0) op1 operand1; a (P, 1) operand0 is read per partition.
#[test]
fn scalar_tensor_tensor_matches_the_reference() {
    for gen in Gen::ALL {
        let mut core = Core::new(gen);
        let (p, f) = (32usize, 40usize);
        let data = filled(&mut core, &[p, f], val);
        let other = filled(&mut core, &[p, f], |r, c| val(c, r) * 0.5);
        let scale = filled(&mut core, &[p, 1], |r, _| r as f32 - 3.0);
        let dst = core.ndarray(&[p, f], Dtype::FP32, Space::Sbuf).unwrap();
        core.scalar_tensor_tensor(
            &dst,
            &data,
            AluOp::SUBTRACT,
            &Operand::Tile(scale),
            AluOp::MULT,
            &other,
            true,
            false,
        )
        .unwrap();
        let got = f32s(&core.read(&dst).unwrap());
        for r in 0..p {
            for c in 0..f {
                let want = ((r as f32 - 3.0) - val(r, c)) * (val(c, r) * 0.5);
                assert_eq!(got[r * f + c], want, "{gen} [{r}][{c}]");
            }
        }
        assert_eq!(core.program().len(), 1);
    }
}

// NKI: r[i] = op1(op0(data0[i], r[i-1]), data1[i]), r[-1] = initial.
#[test]
fn tensor_tensor_scan_matches_the_recurrence() {
    let mut core = Core::new(Gen::Cayman);
    let (p, f) = (8usize, 64usize);
    let d0 = filled(&mut core, &[p, f], |r, c| 0.5 + ((r + c) % 3) as f32 * 0.25);
    let d1 = filled(&mut core, &[p, f], val);
    let dst = core.ndarray(&[p, f], Dtype::FP32, Space::Sbuf).unwrap();
    core.tensor_tensor_scan(
        &dst,
        &d0,
        &d1,
        &Operand::Imm(1.0),
        AluOp::MULT,
        AluOp::ADD,
        false,
        false,
    )
    .unwrap();
    let got = f32s(&core.read(&dst).unwrap());
    for r in 0..p {
        let mut acc = 1.0f32;
        for c in 0..f {
            acc = (0.5 + ((r + c) % 3) as f32 * 0.25) * acc + val(r, c);
            assert_eq!(got[r * f + c], acc, "[{r}][{c}]");
        }
    }
}

// NKI: dst = where(pred, on_true, on_false), reduce_res = row max of the selected values.
#[test]
fn select_reduce_writes_where_and_drains_the_max() {
    let mut core = Core::new(Gen::Cayman);
    let (p, f) = (16usize, 24usize);
    let pred = core.ndarray(&[p, f], Dtype::UINT8, Space::Sbuf).unwrap();
    let bits: Vec<u8> = (0..p * f).map(|i| u8::from(i % 3 == 0)).collect();
    core.write(&pred, &bits).unwrap();
    let on_true = filled(&mut core, &[p, f], val);
    let dst = core.ndarray(&[p, f], Dtype::FP32, Space::Sbuf).unwrap();
    let res = core.ndarray(&[p, 1], Dtype::FP32, Space::Sbuf).unwrap();
    let steps = core
        .select_reduce(
            &dst,
            &pred,
            &on_true,
            &Operand::Imm(-1e30),
            Some(&res),
            ReduceCmd::ResetReduce,
            AluOp::MAX,
            false,
        )
        .unwrap();
    assert_eq!(steps.len(), 2);
    let got = f32s(&core.read(&dst).unwrap());
    let maxes = f32s(&core.read(&res).unwrap());
    for r in 0..p {
        let mut m = f32::NEG_INFINITY;
        for c in 0..f {
            let sel = (r * f + c) % 3 == 0;
            let want = if sel { val(r, c) } else { -1e30 };
            if sel {
                m = m.max(val(r, c));
            }
            assert_eq!(got[r * f + c], want, "[{r}][{c}]");
        }
        assert_eq!(maxes[r], m, "row {r}");
    }
    // reverse_pred has no encoding: refused, nothing emitted.
    let before = core.program().len();
    let e = core
        .select_reduce(
            &dst,
            &pred,
            &on_true,
            &Operand::Imm(0.0),
            None,
            ReduceCmd::Idle,
            AluOp::MAX,
            true,
        )
        .unwrap_err();
    assert!(matches!(e, NkiError::NotSupported { .. }), "{e}");
    assert_eq!(core.program().len(), before);
}

// NKI: dst = data op0 operand0, reduce_res = fold of dst with reduce_op (reset_reduce seeds
// the identity), reduce_res_negate negates the written result only.
#[test]
fn tensor_scalar_reduce_emits_the_cache_op_and_the_drain() {
    let mut core = Core::new(Gen::Mariana);
    let (p, f) = (64usize, 50usize);
    let data = filled(&mut core, &[p, f], val);
    let dst = core.ndarray(&[p, f], Dtype::FP32, Space::Sbuf).unwrap();
    let res = core.ndarray(&[p, 1], Dtype::FP32, Space::Sbuf).unwrap();
    let steps = core
        .tensor_scalar_reduce(
            &dst,
            &data,
            AluOp::MULT,
            &Operand::Imm(2.0),
            AluOp::ADD,
            Some(&res),
            false,
            ReduceCmd::ResetReduce,
            None,
            true,
        )
        .unwrap();
    assert_eq!(steps.len(), 2);
    let got = f32s(&core.read(&dst).unwrap());
    let sums = f32s(&core.read(&res).unwrap());
    for r in 0..p {
        let mut s = 0.0f32;
        for c in 0..f {
            let v = val(r, c) * 2.0;
            s += v;
            assert_eq!(got[r * f + c], v);
        }
        assert_eq!(sums[r], -s, "row {r}");
    }
    let dis = core.disasm();
    assert!(
        dis.contains("ts_cache_reduce") && dis.contains("dve_read_acc"),
        "{dis}"
    );
    // load_reduce without reduce_init is refused before anything runs.
    let e = core
        .tensor_scalar_reduce(
            &dst,
            &data,
            AluOp::MULT,
            &Operand::Imm(2.0),
            AluOp::MAX,
            None,
            false,
            ReduceCmd::LoadReduce,
            None,
            false,
        )
        .unwrap_err();
    assert!(matches!(e, NkiError::Value { .. }), "{e}");
    assert_eq!(core.program().len(), 2);
}

// NKI max8 (descending top 8), nc_find_index8 (index of vals[i] at i; missing → all ones),
// nc_match_replace8 (first occurrence of each val replaced, dst_idx the positions).
#[test]
fn search_calls_follow_nki_order() {
    let mut core = Core::new(Gen::Cayman);
    let (p, f) = (4usize, 100usize);
    let v = |r: usize, c: usize| ((r * 13 + c * 7) % 41) as f32;
    let data = filled(&mut core, &[p, f], v);
    let top = core.ndarray(&[p, 8], Dtype::FP32, Space::Sbuf).unwrap();
    core.max8(&top, &data).unwrap();
    let got = f32s(&core.read(&top).unwrap());
    let mut vals_rows = Vec::new();
    for r in 0..p {
        let mut row: Vec<f32> = (0..f).map(|c| v(r, c)).collect();
        row.sort_by(|a, b| b.partial_cmp(a).unwrap());
        assert_eq!(&got[r * 8..r * 8 + 8], &row[..8], "max8 row {r}");
        vals_rows.push(row[..8].to_vec());
    }
    // Search for [top 7 values..., 1000.0 (absent)].
    let vals = filled(&mut core, &[p, 8], |r, i| {
        if i == 7 {
            1000.0
        } else {
            vals_rows[r][i]
        }
    });
    let idx = core.ndarray(&[p, 8], Dtype::UINT32, Space::Sbuf).unwrap();
    core.nc_find_index8(&idx, &data, &vals).unwrap();
    let b = core.read(&idx).unwrap();
    let got: Vec<u32> = b
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    for r in 0..p {
        for i in 0..8 {
            let want = if i == 7 {
                u32::MAX
            } else {
                (0..f).position(|c| v(r, c) == vals_rows[r][i]).unwrap() as u32
            };
            // Distinct top values (41 distinct residues): first occurrence of each.
            if vals_rows[r][..7]
                .iter()
                .filter(|&&x| x == vals_rows[r][i])
                .count()
                == 1
                || i == 7
            {
                assert_eq!(got[r * 8 + i], want, "find row {r} val {i}");
            }
        }
    }
    let out = core.ndarray(&[p, f], Dtype::FP32, Space::Sbuf).unwrap();
    let pos = core.ndarray(&[p, 8], Dtype::UINT16, Space::Sbuf).unwrap();
    let steps = core
        .nc_match_replace8(&out, &data, &vals, f64::NEG_INFINITY, Some(&pos))
        .unwrap();
    assert_eq!(steps.len(), 3);
    let o = f32s(&core.read(&out).unwrap());
    let pb = core.read(&pos).unwrap();
    let pos: Vec<u16> = pb
        .chunks(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect();
    for r in 0..p {
        for i in 0..7 {
            let at = pos[r * 8 + i] as usize;
            assert_eq!(o[r * f + at], f32::NEG_INFINITY, "row {r} val {i}");
        }
        assert_eq!(pos[r * 8 + 7], 0xFFFF);
        let replaced = (0..f)
            .filter(|&c| o[r * f + c] == f32::NEG_INFINITY)
            .count();
        assert_eq!(replaced, 7, "row {r}");
    }
    assert_eq!(core.program().len(), 1 + 2 + 3);
}

// assumption `search-nki-order`: keys are tried in vals' order, so a row maximum repeated in
// all eight vals (nki-library cascaded_max's zero-step view of a (P, 1) tile) finds its first
// occurrence in slot 0; the other seven keys match nothing else (all ones).
#[test]
fn repeated_vals_find_the_first_occurrence_in_slot_zero() {
    let mut core = Core::new(Gen::Cayman);
    let (p, f) = (3usize, 40usize);
    let v = |r: usize, c: usize| ((r * 5 + c * 11) % 37) as f32;
    let data = filled(&mut core, &[p, f], v);
    let row_max = filled(&mut core, &[p, 1], |r, _| {
        (0..f).map(|c| v(r, c)).fold(f32::MIN, f32::max)
    });
    let vals = row_max.broadcast(1, 8).unwrap();
    let idx = core.ndarray(&[p, 8], Dtype::UINT32, Space::Sbuf).unwrap();
    core.nc_find_index8(&idx, &data, &vals).unwrap();
    let b = core.read(&idx).unwrap();
    let got: Vec<u32> = b
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    for r in 0..p {
        let m = (0..f).map(|c| v(r, c)).fold(f32::MIN, f32::max);
        let first = (0..f).position(|c| v(r, c) == m).unwrap() as u32;
        assert_eq!(got[r * 8], first, "row {r} slot 0");
        assert_eq!(
            &got[r * 8 + 1..r * 8 + 8],
            &[u32::MAX; 7],
            "row {r} other slots"
        );
    }
}
