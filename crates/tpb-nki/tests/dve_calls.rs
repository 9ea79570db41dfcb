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
