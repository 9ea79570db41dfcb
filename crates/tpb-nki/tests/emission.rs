//! Emission as the compiler does it (architecture guide, "The walk of an NKI kernel",
//! steps 3–4): each call on its engine's queue, semaphore waits where footprints conflict
//! across engines, and the recorded program re-run on the engine scheduler gives the same
//! memory as the eager run, with no race. Views (nki-api §2.2) reach the packer.

use tpb_isa::geometry::Space;
use tpb_isa::text::{asm, AsmOptions};
use tpb_isa::{AluOp, Dtype, Gen, WaitMode};
use tpb_nki::{Cmp, Core, Index, Label, Operand, Tile};
use tpb_sim::engines::{place, EngineId, EngineOptions, Stop};

fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn sl(a: i64, b: i64) -> Index {
    Index::Slice {
        start: Some(a),
        stop: Some(b),
        step: None,
    }
}

const FULL: Index = Index::Slice {
    start: None,
    stop: None,
    step: None,
};

/// POOL iota → DVE scale (reads POOL's output) → POOL causal mask (reads DVE's) → POOL
/// iota over the first tile again (a write after DVE's read), on views.
fn pipeline(core: &mut Core) -> Tile {
    let a = core.ndarray(&[64, 32], Dtype::FP32, Space::Sbuf).unwrap();
    let b = core.ndarray(&[64, 32], Dtype::FP32, Space::Sbuf).unwrap();
    let c = core.ndarray(&[64, 32], Dtype::FP32, Space::Sbuf).unwrap();
    core.iota(&a, &[[1, 32]], 0, 32).unwrap();
    for half in 0..2 {
        let rows = sl(32 * half, 32 * half + 32);
        let (va, vb) = (
            a.index(&[rows, FULL]).unwrap(),
            b.index(&[rows, FULL]).unwrap(),
        );
        core.tensor_scalar(
            &vb,
            &va,
            AluOp::MULT,
            Some(&Operand::Imm(0.5)),
            false,
            Some(AluOp::ADD),
            Some(&Operand::Imm(1.0)),
            false,
        )
        .unwrap();
    }
    core.affine_select(&c, &[[-1, 32]], 1, &b, -1.0, Cmp::GreaterEqual, 0)
        .unwrap();
    core.iota(&a, &[[0, 32]], 7, 0).unwrap();
    c
}

#[test]
fn the_emitted_program_is_race_free_and_matches_the_eager_run() {
    for gen in [Gen::Sunda, Gen::Cayman] {
        let mut core = Core::new(gen);
        let c = pipeline(&mut core);
        let got = f32s(&core.read(&c).unwrap());
        for p in 0..64usize {
            for x in 0..32usize {
                let want = if p >= x {
                    (p * 32 + x) as f32 * 0.5 + 1.0
                } else {
                    -1.0
                };
                assert_eq!(got[p * 32 + x], want, "{gen} p{p} x{x}");
            }
        }
        assert_eq!(
            core.engines(),
            [
                EngineId::Pool,
                EngineId::Dve,
                EngineId::Dve,
                EngineId::Pool,
                EngineId::Pool
            ]
        );
        let (m, run) = core.schedule(&EngineOptions::default(), |_, _| {}).unwrap();
        assert_eq!(run.stop, Stop::Completed, "{gen}");
        assert!(run.races.is_empty(), "{gen}: {:?}", run.races);
        assert_eq!(core.first_difference(&m), None, "{gen}");
    }
}

#[test]
fn waits_are_placed_only_where_the_order_is_not_implied() {
    let mut core = Core::new(Gen::Cayman);
    pipeline(&mut core);
    let waits: Vec<(WaitMode, u8, u32)> = core
        .program()
        .iter()
        .map(|i| {
            (
                i.events.wait_mode,
                i.events.wait_idx,
                i.events.semaphore_value,
            )
        })
        .collect();
    let pool = tpb_nki::sync::sync_semaphore(EngineId::Pool);
    let dve = tpb_nki::sync::sync_semaphore(EngineId::Dve);
    let none = (WaitMode::NONE, 0, 0);
    // The first DVE half waits for the iota; the second is ordered after it on DVE's own
    // queue; the mask waits for the second DVE half (implying the first); the final iota is
    // ordered after the mask on POOL's queue, which already waited for DVE.
    assert_eq!(
        waits,
        [
            none,
            (WaitMode::SEM_GE_IMM, pool, 1),
            none,
            (WaitMode::SEM_GE_IMM, dve, 2),
            none
        ]
    );
}

/// The test above can fail: the same program without its waits races on the engines.
#[test]
fn without_the_waits_the_program_races() {
    let mut core = Core::new(Gen::Cayman);
    pipeline(&mut core);
    let mut stripped = core.program().to_vec();
    for i in &mut stripped {
        i.events.wait_mode = WaitMode::NONE;
        i.events.semaphore_value = 0;
    }
    let mut m = tpb_sim::Machine::new(tpb_sim::Config::new(Gen::Cayman));
    let run =
        tpb_sim::engines::run_engines(&mut m, &stripped, core.engines(), &EngineOptions::default());
    assert!(run.race_count > 0);
}

/// `engine=` on an instruction with one home is refused; a per-partition scalar from POOL
/// read on DVE is ordered; the text form (`.engine` lines included) places every
/// instruction on the queue it was emitted to. (Several waits on one instruction need a
/// third engine with memory instructions: `Tracker` unit tests cover the choice.)
#[test]
fn engine_requests_and_the_text_form() {
    let gen = Gen::Cayman;
    let mut core = Core::new(gen);
    let a = core.ndarray(&[8, 8], Dtype::FP32, Space::Sbuf).unwrap();
    let b = core.ndarray(&[8, 8], Dtype::FP32, Space::Sbuf).unwrap();
    let s = core.ndarray(&[8, 1], Dtype::FP32, Space::Sbuf).unwrap();
    core.iota(&s, &[[1, 1]], 3, 0).unwrap();
    core.set_call(Label {
        engine: Some(EngineId::Dve),
        ..Label::default()
    });
    let e = core.iota(&a, &[[1, 8]], 0, 0).unwrap_err().to_string();
    assert!(e.contains("runs on POOL only"), "{e}");
    assert_eq!(core.program().len(), 1);
    core.set_call(Label::default());
    core.iota(&a, &[[1, 8]], 0, 0).unwrap();
    core.tensor_scalar(
        &b,
        &a,
        AluOp::ADD,
        Some(&Operand::Imm(1.0)),
        false,
        None,
        None,
        false,
    )
    .unwrap();
    core.tensor_scalar(
        &a,
        &b,
        AluOp::MULT,
        Some(&Operand::Tile(s.clone())),
        false,
        None,
        None,
        false,
    )
    .unwrap();
    let got = f32s(&core.read(&a).unwrap());
    assert_eq!(got[8 + 2], (2.0 + 1.0) * 3.0);
    let (m, run) = core.schedule(&EngineOptions::default(), |_, _| {}).unwrap();
    assert_eq!(run.stop, Stop::Completed);
    assert!(run.races.is_empty(), "{:?}", run.races);
    assert_eq!(core.first_difference(&m), None);
    let text = core.disasm();
    let code: String = text
        .lines()
        .filter(|l| !l.starts_with(".engine"))
        .map(|l| format!("{l}\n"))
        .collect();
    let insts = asm(&code, &AsmOptions::new(gen)).unwrap().insts();
    assert_eq!(insts, core.program());
    assert_eq!(
        place(&insts, gen, &core.placements()).unwrap(),
        core.engines()
    );
}

/// A strided view (every other column) reaches the packer as a `[[2, n]]` dim.
#[test]
fn strided_views_are_operands() {
    let mut core = Core::new(Gen::Cayman);
    let a = core.ndarray(&[4, 16], Dtype::FP32, Space::Sbuf).unwrap();
    let b = core.ndarray(&[4, 8], Dtype::FP32, Space::Sbuf).unwrap();
    core.iota(&a, &[[1, 16]], 0, 100).unwrap();
    let odd = a
        .index(&[
            FULL,
            Index::Slice {
                start: Some(1),
                stop: None,
                step: Some(2),
            },
        ])
        .unwrap();
    core.tensor_scalar(
        &b,
        &odd,
        AluOp::ADD,
        Some(&Operand::Imm(0.0)),
        false,
        None,
        None,
        false,
    )
    .unwrap();
    let got = f32s(&core.read(&b).unwrap());
    for p in 0..4 {
        for k in 0..8 {
            assert_eq!(got[p * 8 + k], (p * 100 + 2 * k + 1) as f32);
        }
    }
    // Reading the view itself gathers the same elements.
    assert_eq!(f32s(&core.read(&odd).unwrap()), got);
    // A view from partition 2 on (start partition != 0).
    let low = b.index(&[sl(2, 4), FULL]).unwrap();
    assert_eq!(f32s(&core.read(&low).unwrap())[0], 201.0);
}

/// Capacity errors name the tile, its size and what is left (nki-api §2.1 `name`).
#[test]
fn capacity_errors_name_the_tile_and_what_is_left() {
    let mut core = Core::new(Gen::Cayman);
    let total = core.free_bytes(Space::Psum);
    let big = core
        .ndarray_named(
            &[128, (total / 4) as usize],
            Dtype::FP32,
            Space::Psum,
            "acc",
        )
        .unwrap();
    let e = core
        .ndarray_named(&[128, 512], Dtype::FP32, Space::Psum, "scores")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("\"scores\"") && e.contains("2048 bytes") && e.contains("0 of"),
        "{e}"
    );
    core.free(&big);
    core.ndarray_named(&[128, 512], Dtype::FP32, Space::Psum, "scores")
        .unwrap();
}

/// The DVE-or-POOL instructions (issue 17a) go to the queue `engine=` names; a chain that
/// alternates queues over the same bytes (RAW, WAR, WAW) still re-runs race-free with the
/// eager run's memory.
#[test]
fn dve_or_pool_chains_alternate_queues_race_free() {
    use tpb_nki::NkiEngine;
    let on = |core: &mut Core, e: EngineId| {
        core.set_call(Label {
            engine: Some(e),
            ..Label::default()
        })
    };
    for gen in [Gen::Cayman, Gen::Mariana] {
        let mut core = Core::new(gen);
        let a = core.ndarray(&[32, 64], Dtype::FP32, Space::Sbuf).unwrap();
        let b = core.ndarray(&[32, 64], Dtype::FP32, Space::Sbuf).unwrap();
        let r = core.ndarray(&[32, 1], Dtype::FP32, Space::Sbuf).unwrap();
        on(&mut core, EngineId::Pool);
        core.memset(&a, 2.0, NkiEngine::Gpsimd).unwrap();
        core.iota(&b, &[[1, 64]], 0, 0).unwrap();
        on(&mut core, EngineId::Dve);
        core.tensor_tensor(&a, &a, &b, AluOp::MULT, NkiEngine::Vector)
            .unwrap();
        on(&mut core, EngineId::Pool);
        core.tensor_copy(&b, &a, NkiEngine::Gpsimd).unwrap(); // RAW on a, WAR on b
        on(&mut core, EngineId::Dve);
        core.tensor_reduce(&r, AluOp::ADD, &b, &[1], false, true)
            .unwrap();
        on(&mut core, EngineId::Pool);
        core.memset(&b, 0.0, NkiEngine::Gpsimd).unwrap(); // WAR after DVE's reduce
        let got = f32s(&core.read(&r).unwrap());
        assert!(
            got.iter().all(|&v| v == 2.0 * (63.0 * 64.0 / 2.0)),
            "{gen}: {got:?}"
        );
        let engines: Vec<EngineId> = core.engines().to_vec();
        assert!(engines.contains(&EngineId::Pool) && engines.contains(&EngineId::Dve));
        let (m, run) = core.schedule(&EngineOptions::default(), |_, _| {}).unwrap();
        assert_eq!(run.stop, Stop::Completed, "{gen}");
        assert!(run.races.is_empty(), "{gen}: {:?}", run.races);
        assert_eq!(core.first_difference(&m), None, "{gen}");
        // The text form places every instruction where it was emitted.
        let text = core.disasm();
        let code: String = text
            .lines()
            .filter(|l| !l.starts_with(".engine"))
            .map(|l| format!("{l}\n"))
            .collect();
        let insts = asm(&code, &AsmOptions::new(gen)).unwrap().insts();
        assert_eq!(place(&insts, gen, &core.placements()).unwrap(), engines);
    }
}

/// The re-run starts from the host writes made before the first instruction, replayed onto a
/// fresh machine (a view write, a register, and a write through `machine_mut`, which makes
/// the core snapshot the whole machine instead); a write after the first instruction is
/// refused by the re-run.
#[test]
fn the_rerun_replays_the_host_writes_made_before_the_first_instruction() {
    for opaque in [false, true] {
        let mut core = Core::new(Gen::Cayman);
        let a = core.ndarray(&[16, 8], Dtype::FP32, Space::Sbuf).unwrap();
        let b = core.ndarray(&[16, 8], Dtype::FP32, Space::Sbuf).unwrap();
        let v: Vec<u8> = (0..128).flat_map(|i| (i as f32).to_le_bytes()).collect();
        core.write(&a, &v).unwrap();
        core.set_register(3, 7).unwrap();
        if opaque {
            let t = tpb_sim::HostTensor::at(Space::Sbuf, 0..16)
                .offset(a.offset)
                .elements(Dtype::FP32, 1);
            core.machine_mut()
                .write_tensor(&t, &[0, 0, 0x80, 0x3f].repeat(16))
                .unwrap();
        }
        core.tensor_scalar(
            &b,
            &a,
            AluOp::ADD,
            Some(&Operand::Imm(1.0)),
            false,
            None,
            None,
            false,
        )
        .unwrap();
        let (m, run) = core.schedule(&EngineOptions::default(), |_, _| {}).unwrap();
        assert!(run.races.is_empty());
        assert_eq!(core.first_difference(&m), None, "opaque {opaque}");
        assert_eq!(m.registers()[3], 7);
        core.write(&a, &v).unwrap();
        assert!(core.schedule(&EngineOptions::default(), |_, _| {}).is_err());
    }
}
