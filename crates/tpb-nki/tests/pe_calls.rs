//! `nc_matmul` (isa-facts-pe-act-dma §1.2): dst = stationary.T @ moving against a plain
//! reference in tpb's documented order (assumption `pe-summation-order`), and accumulate.

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
                    acc += w[kk * m + mi] * x[kk * n + j];
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
