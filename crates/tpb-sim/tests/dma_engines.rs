//! DMA queues in the multi-engine scheduler (isa-facts-pe-act-dma §3.13, §4.1, §4.2;
//! assumptions `dma-completion`, `dma-timing`): placement, the semaphore at data completion,
//! races with compute engines over SBUF and over HBM, deadlock, and the timeline's steps.

use tpb_isa::geometry::Space;
use tpb_isa::text::{asm, AsmOptions};
use tpb_isa::{Dtype, Gen, Instruction};
use tpb_sim::engines::{place, run_engines, EngineId, EngineOptions, Stop, Timing};
use tpb_sim::{Config, HostTensor, Machine};

fn prog(src: &str, gen: Gen) -> Vec<Instruction> {
    asm(src, &AsmOptions::new(gen)).unwrap().insts()
}

const LOAD: &str = "dma_memcpy semaphore=1 sem_increment=1 src=hbm+0x0:[[64,4],[0,1]] \
    src_elem_size=64 dst=sbuf[p0]+0x0:[[262144,4],[0,1]] dst_elem_size=64 in_dtype=fp32 \
    out_dtype=fp32";
const SCALE: &str = "ts_arith src=sbuf[p0..4]+0x0:[[1,16]] in=fp32 out=fp32 op0=mult imm0=2.0 \
    dst=sbuf[p0..4]+0x100:[[1,16]]";
const STORE: &str = "dma_memcpy semaphore=3 sem_increment=1 src=sbuf[p0]+0x100:[[262144,4],[0,1]] \
    src_elem_size=64 dst=hbm+0x1000:[[64,4],[0,1]] dst_elem_size=64 in_dtype=fp32 out_dtype=fp32";

fn machine(gen: Gen) -> Machine {
    let mut m = Machine::new(Config::new(gen));
    let xs: Vec<u8> = (0..64).flat_map(|i| (i as f32).to_le_bytes()).collect();
    m.write_hbm(0, &xs).unwrap();
    m
}

// §4.1: consumers of DMA data wait on the DMA semaphore; with the waits the pipeline is
// race-free, the results are right, and each DMA appears twice: its issue on SP and its
// transfer on DMA.SP.
#[test]
fn dma_in_compute_dma_out_is_race_free() {
    let g = Gen::Cayman;
    let src = format!(
        "{LOAD}\n{SCALE} wait_mode=sem_ge_imm wait_idx=1 semaphore_value=1 \
         update_mode=sem_inc_complete update_idx=2\n\
         {STORE} wait_mode=sem_ge_imm wait_idx=2 semaphore_value=1\n"
    );
    let insts = prog(&src, g);
    let engines = place(&insts, g, &[]).unwrap();
    assert_eq!(engines, [EngineId::Sp, EngineId::Dve, EngineId::Sp]);
    let mut m = machine(g);
    let run = run_engines(&mut m, &insts, &engines, &EngineOptions::default());
    assert_eq!(run.stop, Stop::Completed);
    assert!(run.races.is_empty(), "{:?}", run.races);
    let out: Vec<f32> = m
        .read_hbm(0x1000, 256)
        .unwrap()
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(out, (0..64).map(|i| 2.0 * i as f32).collect::<Vec<_>>());
    assert_eq!(m.semaphores()[1], 1);
    assert_eq!(m.semaphores()[3], 1);
    let on = |e| run.steps.iter().filter(|s| s.engine == e).count();
    assert_eq!(
        (on(EngineId::Sp), on(EngineId::DmaSp), on(EngineId::Dve)),
        (2, 2, 1)
    );
    // The transfer starts when the issue ends and the DVE starts after the transfer.
    let issue = &run.steps.iter().find(|s| s.engine == EngineId::Sp).unwrap();
    let xfer = &run
        .steps
        .iter()
        .find(|s| s.engine == EngineId::DmaSp)
        .unwrap();
    let dve = &run
        .steps
        .iter()
        .find(|s| s.engine == EngineId::Dve)
        .unwrap();
    // Its data starts DMA_LATENCY_NS (nki-dma-bandwidth-guide L41: ~1300 ns) after the issue.
    assert_eq!(xfer.start_ps, issue.end_ps + 1_300_000);
    assert!(dve.start_ps >= xfer.end_ps);
    assert!(run.summary.iter().any(|s| s.engine == EngineId::DmaSp));
}

// §4.2 (assumption `dma-timing`): the issue takes DMA_ISSUE_NS of the issuer; the data starts
// DMA_LATENCY_NS after it and moves at DMA_ENGINE_MB_PER_S_<gen> on one engine per
// DMA_PARTITIONS_PER_ENGINE partitions (4 partitions: one engine).
#[test]
fn dma_timing_follows_the_named_constants() {
    let g = Gen::Cayman;
    let insts = prog(LOAD, g);
    let engines = place(&insts, g, &[]).unwrap();
    let mut timing = Timing::default();
    timing.set("DMA_LATENCY_NS", 1000).unwrap();
    timing.set("DMA_ENGINE_MB_PER_S_CAYMAN", 256).unwrap();
    let opts = EngineOptions {
        timing,
        ..EngineOptions::default()
    };
    let run = run_engines(&mut machine(g), &insts, &engines, &opts);
    let issue = &run.steps[0];
    let xfer = &run.steps[1];
    assert_eq!(issue.end_ps - issue.start_ps, 600_000);
    // 1 µs latency, then 256 bytes at 256 MB/s = 1 µs.
    assert_eq!(xfer.start_ps - issue.end_ps, 1_000_000);
    assert_eq!(xfer.end_ps - xfer.start_ps, 1_000_000);
}

// Without the wait, DVE reads the tile the DMA queue writes: a read-after-write race between
// DMA.SP and DVE (whatever order the timing model picked).
#[test]
fn dve_reading_a_dma_destination_without_a_wait_races() {
    let g = Gen::Cayman;
    let insts = prog(&format!("{LOAD}\n{SCALE}\n"), g);
    let engines = place(&insts, g, &[]).unwrap();
    let run = run_engines(&mut machine(g), &insts, &engines, &EngineOptions::default());
    assert_eq!(run.stop, Stop::Completed);
    assert_eq!(run.race_count, 1, "{:?}", run.races);
    let r = &run.races[0];
    let sides = [r.first.engine, r.second.engine];
    assert!(sides.contains(&EngineId::DmaSp) && sides.contains(&EngineId::Dve));
    assert_eq!(r.region.space, Space::Sbuf);
}

// Two DMA requests from SP and ACT writing the same HBM bytes, unordered: a WAW race on HBM.
// With ACT waiting for SP's DMA semaphore, none.
#[test]
fn dma_queues_race_over_hbm_and_not_when_synchronised() {
    let g = Gen::Cayman;
    let a = "dma_memcpy semaphore=1 sem_increment=1 src=hbm+0x0:[[64,1],[0,1]] src_elem_size=64 \
             dst=hbm+0x800:[[64,1],[0,1]] dst_elem_size=64 in_dtype=uint8 out_dtype=uint8";
    let b = "dma_memcpy src=hbm+0x40:[[64,1],[0,1]] src_elem_size=64 \
             dst=hbm+0x800:[[64,1],[0,1]] dst_elem_size=64 in_dtype=uint8 out_dtype=uint8";
    let insts = prog(&format!("{a}\n{b}\n"), g);
    let engines = place(&insts, g, &[(1, Some(EngineId::Act))]).unwrap();
    assert_eq!(engines, [EngineId::Sp, EngineId::Act]);
    let run = run_engines(&mut machine(g), &insts, &engines, &EngineOptions::default());
    assert_eq!(run.race_count, 1);
    assert_eq!(run.races[0].region.space, Space::Hbm);
    let insts = prog(
        &format!("{a}\n{b} wait_mode=sem_ge_imm wait_idx=1 semaphore_value=1\n"),
        g,
    );
    let run = run_engines(&mut machine(g), &insts, &engines, &EngineOptions::default());
    assert_eq!(run.stop, Stop::Completed);
    assert_eq!(run.race_count, 0, "{:?}", run.races);
}

// A consumer waiting on a DMA semaphore that no request increments: a deadlock naming DVE.
#[test]
fn waiting_for_a_dma_that_never_signals_is_a_deadlock() {
    let g = Gen::Cayman;
    let load = LOAD.replace("sem_increment=1", "sem_increment=0");
    let insts = prog(
        &format!("{load}\n{SCALE} wait_mode=sem_ge_imm wait_idx=1 semaphore_value=1\n"),
        g,
    );
    let engines = place(&insts, g, &[]).unwrap();
    let run = run_engines(&mut machine(g), &insts, &engines, &EngineOptions::default());
    let Stop::Deadlock(d) = &run.stop else {
        panic!("{:?}", run.stop)
    };
    assert_eq!(d.blocked.len(), 1);
    assert_eq!(d.blocked[0].engine, EngineId::Dve);
}

// §3.1: SP/ACT (hardware DGE, cayman+) or POOL (software DGE) issue DMA; sunda only POOL;
// PE, DVE and the DMA queues themselves cannot be named.
#[test]
fn dma_placement() {
    let g = Gen::Cayman;
    let insts = prog(LOAD, g);
    for (e, ok) in [
        (EngineId::Sp, true),
        (EngineId::Act, true),
        (EngineId::Pool, true),
        (EngineId::Dve, false),
        (EngineId::Pe, false),
        (EngineId::DmaSp, false),
    ] {
        assert_eq!(place(&insts, g, &[(0, Some(e))]).is_ok(), ok, "{e}");
    }
    let s = prog(LOAD, Gen::Sunda);
    assert_eq!(place(&s, Gen::Sunda, &[]).unwrap(), [EngineId::Pool]);
    assert!(place(&s, Gen::Sunda, &[(0, Some(EngineId::Sp))]).is_err());
    // Step mode: the data and the DMA semaphore at once.
    let mut m = machine(g);
    m.step(&insts[0]).unwrap();
    assert_eq!(m.semaphores()[1], 1);
    let t = HostTensor::at(Space::Sbuf, 0..4).elements(Dtype::FP32, 16);
    assert_eq!(m.uninitialised_bytes(&t), Ok(0));
}

// The critical path runs through a DMA request's issue when the issue ended after the
// queue's previous transfer (the transfer waited for it).
#[test]
fn critical_path_goes_through_the_issue() {
    let g = Gen::Cayman;
    let insts = prog(&format!("{LOAD}\n{LOAD}\n"), g);
    let engines = place(&insts, g, &[]).unwrap();
    let run = run_engines(&mut machine(g), &insts, &engines, &EngineOptions::default());
    let path: Vec<(EngineId, usize)> = run
        .critical_path
        .iter()
        .map(|&i| (run.steps[i].engine, run.steps[i].queue_index))
        .collect();
    assert_eq!(
        path,
        [(EngineId::Sp, 0), (EngineId::Sp, 1), (EngineId::DmaSp, 1)],
        "{:#?}",
        run.steps
    );
}
