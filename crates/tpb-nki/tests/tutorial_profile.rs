//! The tiled-matmul tutorial (examples/kernels/matmul_tiled.py, after nki-samples
//! "matrix_multiplication", tiled form: 128 × 128 stationary and 128 × 512 moving tiles, PSUM
//! accumulation over K) profiled on the engine scheduler (issue 28): its loads and stores
//! spread over the SP and ACT DMA queues (`tpb_nki::sync::dma_issuer`), so no single DMA
//! issuer bounds it, and its estimate respects the roofline.

use tpb_isa::geometry::Space;
use tpb_isa::{Dtype, Gen};
use tpb_nki::{Core, Index, NkiEngine};
use tpb_sim::engines::{EngineId, EngineOptions};

fn sl(a: i64, b: i64) -> Index {
    Index::Slice {
        start: Some(a),
        stop: Some(b),
        step: None,
    }
}

/// `out = lhsT.T @ rhs` for lhsT (K, M), rhs (K, N), bf16, as the tutorial writes it.
fn matmul_tiled(core: &mut Core, k: i64, m: i64, n: i64) {
    let bf = Dtype::BFLOAT16;
    let lhs_t = core
        .ndarray(&[k as usize, m as usize], bf, Space::Hbm)
        .unwrap();
    let rhs = core
        .ndarray(&[k as usize, n as usize], bf, Space::Hbm)
        .unwrap();
    let out = core
        .ndarray(&[m as usize, n as usize], bf, Space::Hbm)
        .unwrap();
    core.write(&lhs_t, &vec![0u8; (k * m * 2) as usize])
        .unwrap();
    core.write(&rhs, &vec![0u8; (k * n * 2) as usize]).unwrap();
    for mi in 0..m / 128 {
        for ni in 0..n / 512 {
            let acc = core.ndarray(&[128, 512], Dtype::FP32, Space::Psum).unwrap();
            for ki in 0..k / 128 {
                let lt_view = lhs_t
                    .index(&[sl(ki * 128, ki * 128 + 128), sl(mi * 128, mi * 128 + 128)])
                    .unwrap();
                let rt_view = rhs
                    .index(&[sl(ki * 128, ki * 128 + 128), sl(ni * 512, ni * 512 + 512)])
                    .unwrap();
                let lt = core.load(&lt_view, None).unwrap();
                let rt = core.load(&rt_view, None).unwrap();
                core.nc_matmul(&acc, &lt, &rt, Some(ki > 0)).unwrap();
            }
            let res = core.ndarray(&[128, 512], bf, Space::Sbuf).unwrap();
            core.tensor_copy(&res, &acc, NkiEngine::Vector).unwrap();
            let dst = out
                .index(&[sl(mi * 128, mi * 128 + 128), sl(ni * 512, ni * 512 + 512)])
                .unwrap();
            core.store(&dst, &res).unwrap();
        }
    }
}

#[test]
fn the_tiled_matmul_tutorial_is_not_bound_by_one_dma_issuer() {
    let mut core = Core::new(Gen::Cayman);
    matmul_tiled(&mut core, 256, 128, 1024);
    let (_, run) = core.schedule(&EngineOptions::default(), |_, _| {}).unwrap();
    assert!(run.races.is_empty(), "{:?}", run.races);
    let util = |e: EngineId| {
        run.summary
            .iter()
            .find(|s| s.engine == e)
            .map_or(0.0, |s| s.utilisation)
    };
    let (sp, act, pe) = (util(EngineId::Sp), util(EngineId::Act), util(EngineId::Pe));
    let roof = run.roofline();
    eprintln!(
        "matmul_tiled 256x128x1024 bf16 on trn2: {:.3} us; SP {:.0} %, ACT {:.0} %, PE {:.0} %, \
         DMA.SP {:.0} %, DMA.ACT {:.0} %; {roof}",
        run.makespan_ps as f64 / 1e6,
        sp * 100.0,
        act * 100.0,
        pe * 100.0,
        util(EngineId::DmaSp) * 100.0,
        util(EngineId::DmaAct) * 100.0
    );
    // The requests alternate SP and ACT: both issue, neither alone bounds the kernel.
    let requests = |e: EngineId| {
        run.summary
            .iter()
            .find(|s| s.engine == e)
            .map_or(0, |s| s.instructions)
    };
    assert!(requests(EngineId::DmaSp) > 0 && requests(EngineId::DmaAct) > 0);
    assert!(sp < 0.75, "SP issue-bound: {:.0} %", sp * 100.0);
    assert!(roof.holds(), "{roof}");
}
