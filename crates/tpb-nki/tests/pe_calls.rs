//! `nc_matmul` (isa-facts-pe-act-dma §1.2): dst = stationary.T @ moving against a plain
//! reference in tpb's documented order (assumption `pe-summation-order`: exact products, one
//! fused multiply-add per step, §8 item 7), and accumulate.

use tpb_isa::geometry::Space;
use tpb_isa::{Dtype, Gen};
use tpb_nki::{Core, Tile};

fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn filled(core: &mut Core, shape: &[usize], f: impl Fn(usize, usize) -> f32) -> (Tile, Vec<f32>) {
    let t = core.ndarray(shape, Dtype::FP32, Space::Sbuf).unwrap();
    let n = t.free_elements() as usize;
    let v: Vec<f32> = (0..t.partitions() as usize * n)
        .map(|i| f(i / n, i % n))
        .collect();
    let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    core.write(&t, &bytes).unwrap();
    (t, v)
}

#[test]
fn nc_matmul_is_stationary_transposed_times_moving() {
    let (k, m, n) = (64usize, 48usize, 40usize);
    for gen in [Gen::Sunda, Gen::Cayman, Gen::Mariana] {
        let mut core = Core::new(gen);
        let (st, w) = filled(&mut core, &[k, m], |p, j| {
            ((p * 7 + j * 3) % 17) as f32 / 8.0 - 1.0
        });
        let (mv, x) = filled(&mut core, &[k, n], |p, j| {
            ((p * 5 + j * 11) % 13) as f32 / 4.0 - 1.5
        });
        let dst = core.ndarray(&[m, n], Dtype::FP32, Space::Psum).unwrap();
        core.nc_matmul(&dst, &st, &mv, None).unwrap();
        core.nc_matmul(&dst, &st, &mv, Some(true)).unwrap();
        let got = f32s(&core.read(&dst).unwrap());
        for mi in 0..m {
            for j in 0..n {
                let mut acc = w[mi] * x[j];
                for kk in 1..k {
                    acc = w[kk * m + mi].mul_add(x[kk * n + j], acc);
                }
                assert_eq!(got[mi * n + j].to_bits(), (acc + acc).to_bits(), "{gen}");
            }
        }
    }
}

#[test]
fn nc_matmul_refuses_mismatched_partitions() {
    let mut core = Core::new(Gen::Cayman);
    let (st, _) = filled(&mut core, &[32, 8], |_, _| 1.0);
    let (mv, _) = filled(&mut core, &[16, 8], |_, _| 1.0);
    let dst = core.ndarray(&[8, 8], Dtype::FP32, Space::Psum).unwrap();
    assert!(core.nc_matmul(&dst, &st, &mv, None).is_err());
    assert!(core.program().is_empty());
}

// accumulate=None (nki-api §3.2): the first matmul into a PSUM view overwrites, later ones
// add; a write by another instruction ends the group.
#[test]
fn accumulate_none_opens_a_group_per_psum_view() {
    let mut core = Core::new(Gen::Cayman);
    let (st, w) = filled(&mut core, &[8, 4], |p, j| (p + j) as f32);
    let dst = core.ndarray(&[4, 4], Dtype::FP32, Space::Psum).unwrap();
    let once: Vec<f32> = (0..16)
        .map(|i| {
            let (m, j) = (i / 4, i % 4);
            let mut acc = w[m] * w[j];
            for k in 1..8 {
                acc = w[k * 4 + m].mul_add(w[k * 4 + j], acc);
            }
            acc
        })
        .collect();
    core.nc_matmul(&dst, &st, &st, None).unwrap();
    assert_eq!(f32s(&core.read(&dst).unwrap()), once);
    core.nc_matmul(&dst, &st, &st, None).unwrap();
    let twice: Vec<f32> = once.iter().map(|v| v + v).collect();
    assert_eq!(f32s(&core.read(&dst).unwrap()), twice);
    core.memset(&dst, 0.0, tpb_nki::NkiEngine::Vector).unwrap();
    core.nc_matmul(&dst, &st, &st, None).unwrap();
    assert_eq!(f32s(&core.read(&dst).unwrap()), once);
}

// isa-facts-pe-act-dma §1.8: the bit-accurate fp32 transpose keeps NaN, Inf and -0.0, and
// the emitted program (identity, LoadWeights, Matmul) re-runs race-free on the engines.
#[test]
fn pe_transpose_is_bit_accurate_and_schedules_race_free() {
    let mut core = Core::new(Gen::Cayman);
    let (x, v) = filled(&mut core, &[40, 24], |p, j| match (p, j) {
        (0, 0) => f32::NAN,
        (1, 1) => f32::NEG_INFINITY,
        (2, 2) => -0.0,
        _ => (p * 24 + j) as f32 * 0.25 - 7.0,
    });
    let dst = core.ndarray(&[24, 40], Dtype::FP32, Space::Psum).unwrap();
    core.nc_transpose_pe(&dst, &x).unwrap();
    let got: Vec<u32> = f32s(&core.read(&dst).unwrap())
        .iter()
        .map(|f| f.to_bits())
        .collect();
    for m in 0..24 {
        for j in 0..40 {
            assert_eq!(got[m * 40 + j], v[j * 24 + m].to_bits(), "({m}, {j})");
        }
    }
    let (machine, run) = core
        .schedule(&tpb_sim::engines::EngineOptions::default(), |_, _| {})
        .unwrap();
    assert_eq!(run.stop, tpb_sim::engines::Stop::Completed);
    assert!(run.races.is_empty(), "{:?}", run.races);
    assert_eq!(core.first_difference(&machine), None);
}
