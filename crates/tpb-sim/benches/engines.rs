//! The multi-engine runner's overhead (scheduling, timing, happens-before race detection)
//! over the single in-order stream, as ratios measured in the same run (issue 10 item 8).
//! Run: `cargo bench -p tpb-sim --bench engines`.
//!
//! Goals: ≤ 2× on 10,000 small instructions across two engines, ≤ 10 % on large tiles.

use std::time::{Duration, Instant};
use tpb_isa::geometry::Space;
use tpb_isa::text::{asm, AsmOptions};
use tpb_isa::{Dtype, Gen, Instruction};
use tpb_sim::engines::{place, run_engines, EngineOptions, EngineRun, Stop};
use tpb_sim::{Config, HostTensor, Machine};

const GEN: Gen = Gen::Cayman;

/// As `tpb run` without `--timeline`: no semaphore counter samples.
fn options() -> EngineOptions {
    EngineOptions {
        record_counters: false,
        ..EngineOptions::default()
    }
}

/// Best time of `f` over rounds of at least `min` each.
fn time(min: Duration, mut f: impl FnMut()) -> f64 {
    f();
    let mut best = f64::INFINITY;
    for _ in 0..5 {
        let start = Instant::now();
        let mut iters = 0u64;
        while start.elapsed() < min {
            f();
            iters += 1;
        }
        best = best.min(start.elapsed().as_secs_f64() / iters as f64);
    }
    best
}

fn machine(bytes_per_partition: u64) -> Machine {
    // The run budget would stop the timing loops: a benchmark runs the program many times.
    let mut m = Machine::new(Config {
        max_run_elements: u64::MAX,
        ..Config::new(GEN)
    });
    let epp = bytes_per_partition / 4;
    let data: Vec<u8> = (0..128 * epp)
        .flat_map(|i| ((i % 977) as f32 * 0.5).to_le_bytes())
        .collect();
    m.write_tensor(
        &HostTensor::at(Space::Sbuf, 0..128).elements(Dtype::FP32, epp),
        &data,
    )
    .unwrap();
    m
}

/// A producer/consumer ring of `pairs` small instruction pairs: POOL's Iota fills slot
/// `i % 64` (4 fp32 in one partition) and signals semaphore 0; DVE waits for it, scales the
/// slot into its own ring and signals semaphore 1, which POOL waits for before it reuses a
/// slot (64 behind).
fn ring(pairs: usize) -> Vec<Instruction> {
    let mut s = String::new();
    for i in 0..pairs {
        let slot = (i % 64) * 16;
        let reuse = if i >= 64 {
            format!(
                " wait_mode=sem_ge_imm wait_idx=1 semaphore_value={}",
                i - 63
            )
        } else {
            String::new()
        };
        s += &format!(
            "iota src={i}:[[1,4]] out=fp32 dst=sbuf[p0..1]+{:#x}:[[1,4]] \
             update_mode=sem_inc_complete update_idx=0{reuse}\n",
            0x4000 + slot
        );
        s += &format!(
            "ts_arith src=sbuf[p0..1]+{:#x}:[[1,4]] in=fp32 out=fp32 op0=mult imm0=0.5 \
             dst=sbuf[p0..1]+{:#x}:[[1,4]] wait_mode=sem_ge_imm wait_idx=0 \
             semaphore_value={} update_mode=sem_inc_complete update_idx=1\n",
            0x4000 + slot,
            0x8000 + slot,
            i + 1
        );
    }
    asm(&s, &AsmOptions::new(GEN)).unwrap().insts()
}

/// Large tiles: POOL's Iota fills tile `i % 2` (128 × 8192 fp32) and signals semaphore 0;
/// DVE waits for it and scales it into its own tile, signalling semaphore 1, which POOL waits
/// for before it refills a tile (two behind).
fn tiles(n: usize) -> Vec<Instruction> {
    let mut s = String::new();
    for i in 0..n {
        let tile = 0x8000 * (i % 2);
        let reuse = if i >= 2 {
            format!(" wait_mode=sem_ge_imm wait_idx=1 semaphore_value={}", i - 1)
        } else {
            String::new()
        };
        s += &format!(
            "iota src={i}:[[1,8192]] out=fp32 dst=sbuf[p0..128]+{tile:#x}:[[1,8192]] \
             update_mode=sem_inc_complete update_idx=0{reuse}\n"
        );
        s += &format!(
            "ts_arith src=sbuf[p0..128]+{tile:#x}:[[1,8192]] in=fp32 out=fp32 op0=mult \
             imm0=0.5 dst=sbuf[p0..128]+{:#x}:[[1,8192]] wait_mode=sem_ge_imm wait_idx=0 \
             semaphore_value={} update_mode=sem_inc_complete update_idx=1\n",
            0x10000 + tile,
            i + 1
        );
    }
    asm(&s, &AsmOptions::new(GEN)).unwrap().insts()
}

fn compare(name: &str, insts: &[Instruction], bytes: u64, min: Duration) {
    let engines = place(insts, GEN, &[]).unwrap();
    let mut m = machine(bytes);
    let reset = |m: &mut Machine| {
        m.set_semaphore(0, 0);
        m.set_semaphore(1, 0);
    };
    let mut last: Option<EngineRun> = None;
    let multi = time(min, || {
        reset(&mut m);
        last = Some(run_engines(&mut m, insts, &engines, &options()));
    });
    let run = last.unwrap();
    assert_eq!(run.stop, Stop::Completed);
    let serial = time(min, || {
        reset(&mut m);
        m.run(insts).unwrap();
    });
    // The same instructions as one stream in the order the model started them: the
    // difference is only the scheduler's and the race detector's work.
    let order: Vec<Instruction> = run.steps.iter().map(|s| insts[s.inst.index]).collect();
    let same_order = time(min, || {
        reset(&mut m);
        m.run(&order).unwrap();
    });
    println!(
        "{name:<48} engines {:>8.3} ms  serial {:>8.3} ms (ratio {:.2})  serial in the \
         model's order {:>8.3} ms (ratio {:.2})  [{} instructions, {} races, {:.0} ns each \
         serial]",
        multi * 1e3,
        serial * 1e3,
        multi / serial,
        same_order * 1e3,
        multi / same_order,
        insts.len(),
        run.race_count,
        serial * 1e9 / insts.len() as f64
    );
}

/// `TPB_BENCH_ONLY=serial|engines|setup CASE`: runs one side of one case 50 times (setup:
/// none) and nothing else, so that the process's CPU time (`time`) measures the work with
/// less of the wall-clock noise of a shared machine.
fn only(side: &str, name: &str, insts: &[Instruction], bytes: u64) {
    let engines = place(insts, GEN, &[]).unwrap();
    let mut m = machine(bytes);
    let rounds = if side == "setup" { 0 } else { 50 };
    for _ in 0..rounds {
        m.set_semaphore(0, 0);
        m.set_semaphore(1, 0);
        if side == "serial" {
            m.run(insts).unwrap();
        } else {
            let r = run_engines(&mut m, insts, &engines, &options());
            assert_eq!(r.stop, Stop::Completed);
        }
    }
    println!("{side}: {name}");
}

fn main() {
    if let Ok(side) = std::env::var("TPB_BENCH_ONLY") {
        if std::env::args().any(|a| a == "large") {
            only(&side, "large", &tiles(8), 0x10000);
        } else {
            only(&side, "small", &ring(5000), 0x10000);
        }
        return;
    }
    // `cargo bench -p tpb-sim --bench engines -- small` runs only the cases naming `small`.
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let wanted = |name: &str| filter.is_empty() || filter.iter().any(|f| name.contains(f.as_str()));
    let min = Duration::from_millis(600);
    let small = "10,000 small instructions, POOL + DVE ring";
    if wanted(small) {
        compare(small, &ring(5000), 0x10000, min);
    }
    let large = "large tiles: 8 × (Iota + TensorScalar) 128×8192";
    if wanted(large) {
        compare(large, &tiles(8), 0x10000, min);
    }
}
