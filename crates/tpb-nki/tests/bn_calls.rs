//! `bn_stats` / `bn_aggr` against a reference written from nki-api §3's definition (per
//! partition: count, mean, variance·count of the even-indexed then the odd-indexed elements;
//! bn_aggr folds the triples into mean and variance), and their refusals. The lowering is
//! tpb's (assumption `bn-stats-lowering`), so the comparison has a tolerance: 1e-5 relative.

use tpb_isa::geometry::Space;
use tpb_isa::{Dtype, Gen};
use tpb_nki::{Core, NkiError, Tile};
use tpb_sim::WarningKind;

fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn filled(core: &mut Core, p: usize, f: usize, v: impl Fn(usize, usize) -> f32) -> Tile {
    let t = core.ndarray(&[p, f], Dtype::FP32, Space::Sbuf).unwrap();
    let bytes: Vec<u8> = (0..p * f)
        .flat_map(|i| v(i / f, i % f).to_le_bytes())
        .collect();
    core.write(&t, &bytes).unwrap();
    t
}

fn val(r: usize, c: usize) -> f32 {
    ((r * 37 + c * 11) % 23) as f32 * 0.25 - 2.0
}

/// (count, mean, variance·count) of `xs` in f64.
fn triple(xs: &[f64]) -> [f64; 3] {
    if xs.is_empty() {
        return [0.0; 3];
    }
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    [n, mean, xs.iter().map(|x| (x - mean).powi(2)).sum()]
}

fn close(got: f32, want: f64) -> bool {
    (f64::from(got) - want).abs() <= 1e-5 * want.abs().max(1.0)
}

#[test]
fn bn_stats_then_bn_aggr_match_the_definition() {
    for f in [1usize, 6, 301, 512] {
        let mut core = Core::new(Gen::Cayman);
        let p = 16;
        let x = filled(&mut core, p, f, val);
        let st = core.ndarray(&[p, 6], Dtype::FP32, Space::Sbuf).unwrap();
        let steps = core.bn_stats(&st, &x).unwrap();
        assert!(steps
            .last()
            .unwrap()
            .warnings
            .iter()
            .any(|w| w.kind == WarningKind::Approximate));
        let got = f32s(&core.read(&st).unwrap());
        for r in 0..p {
            let row: Vec<f64> = (0..f).map(|c| f64::from(val(r, c))).collect();
            let even: Vec<f64> = row.iter().copied().step_by(2).collect();
            let odd: Vec<f64> = row.iter().copied().skip(1).step_by(2).collect();
            let want: Vec<f64> = triple(&even).into_iter().chain(triple(&odd)).collect();
            for k in 0..6 {
                assert!(close(got[r * 6 + k], want[k]), "f {f} row {r} slot {k}");
            }
        }
        let mv = core.ndarray(&[p, 2], Dtype::FP32, Space::Sbuf).unwrap();
        core.bn_aggr(&mv, &st).unwrap();
        let got = f32s(&core.read(&mv).unwrap());
        for r in 0..p {
            let row: Vec<f64> = (0..f).map(|c| f64::from(val(r, c))).collect();
            let [n, mean, m2] = triple(&row);
            assert!(close(got[r * 2], mean), "f {f} row {r} mean");
            assert!(close(got[r * 2 + 1], m2 / n), "f {f} row {r} variance");
        }
    }
}

#[test]
fn refusals_name_the_parameter_and_emit_nothing() {
    let mut core = Core::new(Gen::Cayman);
    let wide = filled(&mut core, 4, 513, val);
    let st = core.ndarray(&[4, 6], Dtype::FP32, Space::Sbuf).unwrap();
    let before = core.program().len();
    let e = core.bn_stats(&st, &wide).unwrap_err();
    assert!(
        matches!(
            e,
            NkiError::Value {
                argument: "data",
                ..
            }
        ),
        "{e}"
    );
    let eight = filled(&mut core, 4, 8, val);
    let mv = core.ndarray(&[4, 2], Dtype::FP32, Space::Sbuf).unwrap();
    let e = core.bn_aggr(&mv, &eight).unwrap_err();
    assert!(e.to_string().contains("multiple of 3"), "{e}");
    let e = core.bn_aggr(&st, &st).unwrap_err();
    assert!(matches!(e, NkiError::Shape { operand: "dst", .. }), "{e}");
    assert_eq!(core.program().len(), before);
}

#[test]
fn strict_exact_refuses_and_leaves_the_core_unchanged() {
    let mut config = tpb_sim::Config::new(Gen::Cayman);
    config.strict_exact = true;
    let mut core = Core::with_config(config);
    let x = filled(&mut core, 4, 8, val);
    let st = core.ndarray(&[4, 6], Dtype::FP32, Space::Sbuf).unwrap();
    let e = core.bn_stats(&st, &x).unwrap_err();
    assert!(e.to_string().contains("approximate"), "{e}");
    assert!(core.program().is_empty());
}
