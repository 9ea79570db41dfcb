//! `dma_copy`, `nl.load` / `nl.store` on the NKI core (nki-api §3.6, §2.7;
//! isa-facts-pe-act-dma §3.4, §3.5): HBM tensors, the emitted DMAMEMCPY, its queue, and
//! a plain reference of the copy.

use tpb_isa::geometry::Space;
use tpb_isa::text::{asm, AsmOptions};
use tpb_isa::WaitMode;
use tpb_isa::{AluOp, Body, Dtype, Gen, Opcode};
use tpb_nki::dma::{DmaPlace, DmaView};
use tpb_nki::sync::sync_semaphore;
use tpb_nki::Index;
use tpb_nki::{Core, NkiError, Operand};
use tpb_sim::engines::{place, EngineId, EngineOptions, Stop};

fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn load_compute_store_round_trip() {
    let g = Gen::Cayman;
    let mut core = Core::new(g);
    let x = core.ndarray(&[4, 8], Dtype::FP32, Space::Hbm).unwrap();
    let y = core.ndarray(&[4, 8], Dtype::FP32, Space::Hbm).unwrap();
    assert_eq!(x.region(), format!("hbm+0x0:{}:4x8", Dtype::FP32));
    let xs: Vec<f32> = (0..32).map(|i| i as f32 * 0.5).collect();
    core.write(
        &x,
        &xs.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<_>>(),
    )
    .unwrap();
    let t = core.load(&x, None).unwrap();
    assert_eq!((t.space, t.shape.clone()), (Space::Sbuf, vec![4, 8]));
    let u = core.ndarray(&[4, 8], Dtype::FP32, Space::Sbuf).unwrap();
    core.tensor_scalar(
        &u,
        &t,
        AluOp::MULT,
        Some(&Operand::Imm(3.0)),
        false,
        None,
        None,
        false,
    )
    .unwrap();
    core.store(&y, &u).unwrap();
    let got = f32s(&core.read(&y).unwrap());
    assert_eq!(got, xs.iter().map(|v| v * 3.0).collect::<Vec<_>>());
    // Two DMA requests, one DVE instruction. Requests naming no engine alternate SP, ACT
    // (tpb_nki::sync::dma_issuer: the two DGE instances, trainium2_arch.rst L347).
    let p = core.program();
    assert_eq!(p[0].opcode(), Opcode::DMA_MEMCPY);
    assert_eq!(p[2].opcode(), Opcode::DMA_MEMCPY);
    let engines = place(p, g, &core.placements()).unwrap();
    assert_eq!(engines, [EngineId::Sp, EngineId::Dve, EngineId::Act]);
    let text = core.disasm();
    // SP is the table's default issuer: only the request on ACT needs an `.engine` line.
    assert_eq!(text.matches(".engine act").count(), 1, "{text}");
    // `.engine` lines are `tpb run` directives; the instructions assemble back.
    let code: String = text
        .lines()
        .filter(|l| !l.starts_with(".engine"))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(asm(&code, &AsmOptions::new(g)).unwrap().insts(), p);
}

// nki-api §3.6: dtype conversion through fp32; ACT/POOL queues; PE refused; PSUM source
// refused; unequal element counts refused.
#[test]
fn dma_copy_casts_and_checks_its_arguments() {
    let g = Gen::Cayman;
    let mut core = Core::new(g);
    let x = core.ndarray(&[2, 4], Dtype::FP32, Space::Hbm).unwrap();
    core.write(
        &x,
        &[1.5f32, -2.0, 0.25, 3.0e38, 0.0, 1.0, 2.0, 3.0]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect::<Vec<_>>(),
    )
    .unwrap();
    let b = core.ndarray(&[2, 4], Dtype::BFLOAT16, Space::Sbuf).unwrap();
    // Under the emitted synchronisation the DMA's one semaphore is the emission's.
    let e = core
        .dma_copy(&b, &x, Some(EngineId::Act), Some(4))
        .unwrap_err();
    assert!(matches!(e, NkiError::NotSupported { .. }), "{e}");
    core.set_auto_sync(false);
    core.dma_copy(&b, &x, Some(EngineId::Act), Some(4)).unwrap();
    assert_eq!(core.machine().semaphores()[4], 1);
    let bits: Vec<u16> = core
        .read(&b)
        .unwrap()
        .chunks(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect();
    assert_eq!(&bits[..4], &[0x3FC0, 0xC000, 0x3E80, 0x7F62]);
    assert!(matches!(
        core.dma_copy(&b, &x, Some(EngineId::Pe), None),
        Err(NkiError::Value {
            argument: "engine",
            ..
        })
    ));
    let ps = core.ndarray(&[2, 4], Dtype::FP32, Space::Psum).unwrap();
    assert!(core.dma_copy(&x, &ps, None, None).is_err());
    let small = core.ndarray(&[2, 2], Dtype::FP32, Space::Sbuf).unwrap();
    let e = core.dma_copy(&small, &x, None, None).unwrap_err();
    assert!(e.to_string().contains("equal element counts"), "{e}");
    // A strided HBM view (NKI `.ap`): every other element of row 0.
    let v = DmaView::new(DmaPlace::Hbm(x.offset), Dtype::FP32, vec![[1, 1], [2, 2]]);
    let w = core.ndarray(&[1, 2], Dtype::FP32, Space::Sbuf).unwrap();
    core.dma_copy_view(&w.dma_view().unwrap(), &v, None, None)
        .unwrap();
    assert_eq!(f32s(&core.read(&w).unwrap()), [1.5, 0.25]);
    let last = core.program().last().unwrap();
    let Body::DmaDirect2d(s) = last.body else {
        panic!()
    };
    assert_eq!(
        (s.src_elem_size, s.src.step_elem[0], s.src.num_elem[0]),
        (4, 8, 2)
    );
}

// The HBM allocator is bounded by the machine's HBM.
#[test]
fn hbm_allocation_is_bounded() {
    let mut core = Core::with_config(tpb_sim::Config {
        hbm_bytes: 4096,
        ..tpb_sim::Config::new(Gen::Cayman)
    });
    core.ndarray(&[600], Dtype::FP32, Space::Hbm).unwrap();
    let e = core.ndarray(&[600], Dtype::FP32, Space::Hbm).unwrap_err();
    assert!(
        matches!(
            e,
            NkiError::OutOfMemory {
                space: Space::Hbm,
                ..
            }
        ),
        "{e}"
    );
}

/// `dma-completion` (docs/reference/dma.md): a DMA's EVENTS update fires at issue, its own
/// semaphore when the data has landed. The emitted consumer waits for the landed count on
/// the DMA queue's semaphore, the store waits for its producer, and the program re-runs on
/// the engines race-free with the eager run's memory, HBM included.
#[test]
fn loads_and_stores_wait_for_landed_data_and_run_race_free() {
    for g in [Gen::Sunda, Gen::Cayman] {
        let mut core = Core::new(g);
        let x = core.ndarray(&[256, 64], Dtype::FP32, Space::Hbm).unwrap();
        let y = core.ndarray(&[256, 64], Dtype::FP32, Space::Hbm).unwrap();
        let xs: Vec<f32> = (0..256 * 64).map(|i| i as f32 * 0.25 - 7.0).collect();
        core.write(
            &x,
            &xs.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<_>>(),
        )
        .unwrap();
        for half in 0..2i64 {
            let rows = [Index::Range {
                start: half * 128,
                size: 128,
                step: 1,
            }];
            let t = core.load(&x.index(&rows).unwrap(), None).unwrap();
            let u = core.ndarray(&[128, 64], Dtype::FP32, Space::Sbuf).unwrap();
            core.tensor_scalar(
                &u,
                &t,
                AluOp::ADD,
                Some(&Operand::Imm(1.5)),
                false,
                None,
                None,
                false,
            )
            .unwrap();
            core.store(&y.index(&rows).unwrap(), &u).unwrap();
            core.free(&t);
            core.free(&u);
        }
        let got = f32s(&core.read(&y).unwrap());
        assert_eq!(got, xs.iter().map(|v| v + 1.5).collect::<Vec<_>>(), "{g}");
        let issuer = if g == Gen::Sunda {
            EngineId::Pool
        } else {
            EngineId::Sp
        };
        let queue = issuer.dma_queue().unwrap();
        let p = core.program();
        let Body::DmaDirect2d(load) = p[0].body else {
            panic!()
        };
        assert_eq!(
            (load.semaphore, load.sem_increment),
            (sync_semaphore(queue), 1)
        );
        // The DVE add waits for the first transfer to land, not for its issue.
        assert_eq!(
            (
                p[1].events.wait_mode,
                p[1].events.wait_idx,
                p[1].events.semaphore_value
            ),
            (WaitMode::SEM_GE_IMM, sync_semaphore(queue), 1),
            "{g}"
        );
        // The store waits for the add.
        assert_eq!(
            (
                p[2].events.wait_mode,
                p[2].events.wait_idx,
                p[2].events.semaphore_value
            ),
            (WaitMode::SEM_GE_IMM, sync_semaphore(EngineId::Dve), 1),
            "{g}"
        );
        let (m, run) = core.schedule(&EngineOptions::default(), |_, _| {}).unwrap();
        assert_eq!(run.stop, Stop::Completed, "{g}");
        assert!(run.races.is_empty(), "{g}: {:?}", run.races);
        assert_eq!(core.first_difference(&m), None, "{g}");
        assert!(
            run.summary
                .iter()
                .any(|s| s.engine == queue && s.instructions > 0),
            "{g}"
        );
    }
}

/// The test above can fail: with the DVE add waiting only for the request's issue (the
/// issuer's semaphore), the engines see the add race with the transfer.
#[test]
fn waiting_for_the_issue_instead_of_the_landing_races() {
    let g = Gen::Cayman;
    let mut core = Core::new(g);
    let x = core.ndarray(&[128, 512], Dtype::FP32, Space::Hbm).unwrap();
    core.write(&x, &vec![0u8; 128 * 512 * 4]).unwrap();
    let t = core.load(&x, None).unwrap();
    let u = core.ndarray(&[128, 512], Dtype::FP32, Space::Sbuf).unwrap();
    core.tensor_scalar(
        &u,
        &t,
        AluOp::ADD,
        Some(&Operand::Imm(1.0)),
        false,
        None,
        None,
        false,
    )
    .unwrap();
    let mut prog = core.program().to_vec();
    assert_eq!(prog[1].events.wait_idx, sync_semaphore(EngineId::DmaSp));
    prog[1].events.wait_idx = sync_semaphore(EngineId::Sp);
    let mut m = tpb_sim::Machine::new(tpb_sim::Config::new(g));
    m.write_hbm(0, &vec![0u8; 128 * 512 * 4]).unwrap();
    let run =
        tpb_sim::engines::run_engines(&mut m, &prog, core.engines(), &EngineOptions::default());
    assert!(run.race_count > 0, "{:?}", run.stop);
}

/// A view with three non-contiguous dims does not fit DMA_DIRECT2D (isa-facts-pe-act-dma
/// §3.4): the copy is split into one request per index of the outer dim, each synchronised.
#[test]
fn a_three_dim_strided_load_splits_into_requests() {
    let g = Gen::Cayman;
    let mut core = Core::new(g);
    let x = core.ndarray(&[4, 8, 16], Dtype::FP32, Space::Hbm).unwrap();
    let xs: Vec<f32> = (0..4 * 8 * 16).map(|i| i as f32).collect();
    core.write(
        &x,
        &xs.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<_>>(),
    )
    .unwrap();
    let every_other = Index::Slice {
        start: None,
        stop: None,
        step: Some(2),
    };
    let v = x
        .index(&[
            Index::Slice {
                start: None,
                stop: None,
                step: None,
            },
            every_other,
            every_other,
        ])
        .unwrap();
    let t = core.load(&v, None).unwrap();
    assert_eq!(t.shape, vec![4, 4, 8]);
    assert_eq!(core.program().len(), 4);
    let got = f32s(&core.read(&t).unwrap());
    let want: Vec<f32> = (0..4)
        .flat_map(|p| {
            (0..4).flat_map(move |j| (0..8).map(move |k| (p * 128 + j * 32 + k * 2) as f32))
        })
        .collect();
    assert_eq!(got, want);
    let (m, run) = core.schedule(&EngineOptions::default(), |_, _| {}).unwrap();
    assert!(run.races.is_empty(), "{:?}", run.races);
    assert_eq!(core.first_difference(&m), None);
}

/// `nl.broadcast_to` over partitions: one DMA reads the single source partition with a
/// partition step of 0 (isa-facts-pe-act-dma §3.4: steps are signed, 0 repeats).
#[test]
fn a_partition_broadcast_is_one_zero_step_dma() {
    let g = Gen::Cayman;
    let mut core = Core::new(g);
    let row = core.ndarray(&[1, 8], Dtype::FP32, Space::Sbuf).unwrap();
    let vals: Vec<f32> = (0..8).map(|i| i as f32 - 2.5).collect();
    core.write(
        &row,
        &vals
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect::<Vec<_>>(),
    )
    .unwrap();
    let all = core.ndarray(&[64, 8], Dtype::FP32, Space::Sbuf).unwrap();
    core.broadcast_partitions(&all, &row).unwrap();
    let got = f32s(&core.read(&all).unwrap());
    assert_eq!(got, vals.repeat(64));
    let Body::DmaDirect2d(s) = core.program()[0].body else {
        panic!()
    };
    assert_eq!((s.src.step_elem[0], s.src.num_elem[0]), (0, 64));
    let two = core.ndarray(&[2, 8], Dtype::FP32, Space::Sbuf).unwrap();
    assert!(core.broadcast_partitions(&all, &two).is_err());
}

/// nki-api §2.2: a view with a start partition other than 0 (and a column block) is a DMA
/// source and destination like a whole tile; the later overwrite of the stored rows waits
/// for the store's transfer (write after read on the DMA queue).
#[test]
fn start_partition_views_move_and_order_their_rows() {
    let g = Gen::Cayman;
    let mut core = Core::new(g);
    let x = core.ndarray(&[64, 16], Dtype::FP32, Space::Hbm).unwrap();
    let y = core.ndarray(&[32, 8], Dtype::FP32, Space::Hbm).unwrap();
    let xs: Vec<f32> = (0..64 * 16).map(|i| i as f32).collect();
    core.write(
        &x,
        &xs.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<_>>(),
    )
    .unwrap();
    let t = core.load(&x, None).unwrap();
    let block = t
        .index(&[
            Index::Range {
                start: 32,
                size: 32,
                step: 1,
            },
            Index::Range {
                start: 4,
                size: 8,
                step: 1,
            },
        ])
        .unwrap();
    assert_eq!(block.start_partition, 32);
    core.store(&y, &block).unwrap();
    // POOL overwrites the tile the store's transfer read.
    core.memset(&t, 0.0, tpb_nki::NkiEngine::Gpsimd).unwrap();
    let last = core.program().last().unwrap();
    assert_eq!(
        (
            last.events.wait_mode,
            last.events.wait_idx,
            last.events.semaphore_value
        ),
        // The store is the kernel's second request: ACT issues it (`sync::dma_issuer`).
        (WaitMode::SEM_GE_IMM, sync_semaphore(EngineId::DmaAct), 1)
    );
    let want: Vec<f32> = (32..64)
        .flat_map(|p| (4..12).map(move |c| (p * 16 + c) as f32))
        .collect();
    assert_eq!(f32s(&core.read(&y).unwrap()), want);
    let (m, run) = core.schedule(&EngineOptions::default(), |_, _| {}).unwrap();
    assert!(run.races.is_empty(), "{:?}", run.races);
    assert_eq!(core.first_difference(&m), None);
}
