//! The simulator against the naive reference (tests/reference), bit for bit: random shapes,
//! dtypes, strides (negative and zero steps), aliasing (src == dst, overlapping operands),
//! register-form addresses, pointer immediates, SBUF and PSUM, strict mode, events, and all
//! four generations. Faults must agree in kind and leave the machine unchanged.
#![allow(clippy::needless_range_loop)] // plain index loops read like the expectations

mod family;
mod gen;
mod reference;

use family::generators;
use gen::*;
use proptest::prelude::*;
use reference::{RefFault, RefWarn, WINDOW};
use tpb_isa::geometry::Space;
use tpb_isa::validate::is_valid;
use tpb_isa::{Dtype, Gen, Instruction};
use tpb_sim::numerics::simd;
use tpb_sim::{FaultCause, HostTensor, WarningKind};

// ---- comparison ----------------------------------------------------------------------------

fn category(c: &FaultCause) -> RefFault {
    match c {
        FaultCause::OutOfRange { .. } | FaultCause::BadAddress { .. } => RefFault::Address,
        FaultCause::Unsupported { .. } => RefFault::Unsupported,
        FaultCause::Disabled { .. } => RefFault::Disabled,
        FaultCause::WaitUnsatisfied { .. } => RefFault::Wait,
        FaultCause::Event { .. } => RefFault::Event,
        FaultCause::Strict(..) => RefFault::Strict,
        other => panic!("unexpected fault {other}"),
    }
}

fn same_state(w: &World) -> Result<(), TestCaseError> {
    let spaces: &[Space] = if w.gen == Gen::Maverick {
        &[Space::Sbuf]
    } else {
        &[Space::Sbuf, Space::Psum]
    };
    for &space in spaces {
        let si = if space == Space::Sbuf { 0 } else { 1 };
        let t = HostTensor::at(space, 0..128).elements(Dtype::UINT8, WINDOW as u64);
        let got = w.m.read_tensor(&t).unwrap();
        if got != w.r.mem[si] {
            let i = got
                .iter()
                .zip(&w.r.mem[si])
                .position(|(a, b)| a != b)
                .unwrap();
            return Err(TestCaseError::fail(format!(
                "{} differs at partition {} byte {:#x}: sim {:#04x} ref {:#04x}",
                space.name(),
                i / WINDOW,
                i % WINDOW,
                got[i],
                w.r.mem[si][i]
            )));
        }
        for p in 0..128u32 {
            let t = HostTensor::at(space, p..p + 1).elements(Dtype::UINT8, WINDOW as u64);
            let un = w.m.uninitialised_bytes(&t).unwrap();
            let base = p as usize * WINDOW;
            let want = w.r.init[si][base..base + WINDOW]
                .iter()
                .filter(|&&x| !x)
                .count() as u64;
            prop_assert_eq!(
                un,
                want,
                "initialised shadow of {} partition {}",
                space.name(),
                p
            );
        }
    }
    for c in 0..128 {
        let f = w.m.flops()[c];
        prop_assert_eq!(f.slots, w.r.flops[c], "flops of channel {}", c);
        prop_assert_eq!(f.loaded, w.r.loaded[c]);
    }
    prop_assert_eq!(&w.m.semaphores()[..], &w.r.sems[..]);
    prop_assert_eq!(&w.m.events()[..], &w.r.events[..]);
    same_dve_state(w)
}

/// The hidden per-lane DVE state (isa-facts-dve-pool §0.3.3): accumulators, match keys and
/// flags, index flops, and the mask-select table.
fn same_dve_state(w: &World) -> Result<(), TestCaseError> {
    let dve = w.m.dve_state();
    for (c, (m, r)) in dve.lanes.iter().zip(&w.r.dve).enumerate() {
        let sim = (m.accumulator, m.accumulator_written);
        prop_assert_eq!(sim, (r.acc, r.acc_set), "accumulator of lane {}", c);
        let sim = (m.match_keys, m.match_keys_loaded, m.matched);
        prop_assert_eq!(
            sim,
            (r.keys, r.keys_set, r.matched),
            "match keys of lane {}",
            c
        );
        let sim = (m.index_flops, m.index_flops_written);
        prop_assert_eq!(sim, (r.idx, r.idx_set), "index flops of lane {}", c);
    }
    prop_assert_eq!(dve.mask_select, w.r.mask_select, "mask-select table");
    Ok(())
}

/// Runs `make`'s program on the simulator and the reference. `threads > 1` sends every
/// instruction with two or more channels through the threaded engine (threshold 0), so the
/// properties cover the single-threaded and the threaded paths alike; `level` picks the SIMD
/// level the simulator's kernels run at (one of those this CPU has), so every level is
/// checked against the plain reference in one process.
fn check(
    seed: u64,
    gen: Gen,
    (threads, level): (usize, usize),
    make: fn(&mut World) -> Vec<Instruction>,
) -> Result<(), TestCaseError> {
    let levels = simd::available();
    let level = levels[level % levels.len()];
    let mut w = World::new(seed, gen);
    w.m.set_threading(threads, if threads > 1 { 0 } else { u64::MAX });
    let prog = make(&mut w);
    for inst in &prog {
        // `TPB_DUMP=1` prints each generated instruction (to read a failing case).
        if std::env::var("TPB_DUMP").is_ok() {
            eprintln!("{}", tpb_isa::text::disasm(inst, gen));
        }
        // Issue 17a's generators (now reached here through `generators()`) sometimes make an
        // invalid instruction (e.g. a misaligned uint32 src0 at seed 3710658523140334429);
        // such a case is skipped, and proptest fails if too many are.
        prop_assume!(is_valid(inst, gen));
        let before = w.m.clone();
        let sim = simd::with_level(level, || w.m.step(inst)).expect("an available level");
        let strict = w.strict;
        let rf = reference::step(&mut w.r, inst, strict);
        match (sim, rf) {
            (Ok(rep), Ok(warns)) => {
                let mut kinds: Vec<RefWarn> = rep
                    .warnings
                    .iter()
                    .map(|x| match x.kind {
                        WarningKind::Uninitialised => RefWarn::Uninit,
                        WarningKind::LoaderMismatch => RefWarn::Loader,
                        WarningKind::DveStateUnset => RefWarn::DveUnset,
                        k => panic!("unexpected warning {k:?}"),
                    })
                    .collect();
                kinds.sort();
                kinds.dedup();
                prop_assert_eq!(kinds, warns, "warnings: {:?}", rep.warnings);
            }
            (Err(f), Err(c)) => {
                prop_assert_eq!(category(&f.cause), c, "fault: {}", f);
                prop_assert!(w.m == before, "a fault changed the machine: {}", f);
            }
            (Ok(rep), Err(c)) => {
                return Err(TestCaseError::fail(format!(
                    "simulator ran ({rep}), reference faulted {c:?}"
                )))
            }
            (Err(f), Ok(_)) => {
                return Err(TestCaseError::fail(format!(
                    "simulator faulted, reference ran: {f}"
                )))
            }
        }
        same_state(&w)?;
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1024, ..ProptestConfig::default() })]

    /// Every family's generator (tests/gen, derived from the family list), on a generation
    /// that defines the family (about 64 cases per family for 16 families).
    #[test]
    fn every_family_matches_reference(seed: u64, which: prop::sample::Index, gen_pick: prop::sample::Index, threads in 1usize..=3, level in 0usize..3) {
        let all = generators();
        let (_, make, gens) = &all[which.index(all.len())];
        check(seed, gens[gen_pick.index(gens.len())], (threads, level), *make)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn sunda_dual_matches_reference(seed: u64, threads in 1usize..=3, level in 0usize..3) {
        check(seed, Gen::Sunda, (threads, level), gen_ptr_multi)?;
    }
}

/// Regression (found by `every_family_matches_reference`): a TensorReduce over groups of one
/// fp8 NaN with `negated = 1` — the dense fast path pinned the NaN before negating, while a
/// group of one never reaches the ALU (assumption `reduce-geometry`).
#[test]
fn tensor_reduce_single_element_nan_group_keeps_its_bits() {
    let all = generators();
    let (_, make, gens) = all
        .iter()
        .find(|(f, _, _)| *f == tpb_isa::opcode::Family::TensorReduce)
        .unwrap();
    check(11566413342976096569, gens[0], (1, 0), *make).unwrap();
}
