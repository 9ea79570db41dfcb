//! The multi-engine model (issue 10): happens-before through every WAIT and UPDATE mode
//! (isa-facts §1.3), events, register-valued waits, `_READ` against `_COMPLETE`, races the
//! schedule happened to order, deadlocks, and a property: a random race-free multi-queue
//! program ends in the state of a serial run of the order its synchronisation implies.

use proptest::prelude::*;
use tpb_isa::text::{asm, AsmOptions};
use tpb_isa::{geometry::Space, Dtype, Gen, Instruction};
use tpb_sim::engines::{
    place, run_engines, EngineId, EngineOptions, EngineRun, Object, RaceKind, Stop, Timing, Wait,
};
use tpb_sim::{Config, FaultCause, HostTensor, Machine};

fn program(src: &str) -> Vec<Instruction> {
    asm(src, &AsmOptions::new(Gen::Cayman))
        .unwrap_or_else(|e| panic!("{e}\n{src}"))
        .insts()
}

/// A machine whose slots 0x0..0x400 (partitions 0..2) hold data, so nothing warns.
fn machine() -> Machine {
    let mut m = Machine::new(Config::new(Gen::Cayman));
    let t = HostTensor::at(Space::Sbuf, 0..2).elements(Dtype::FP32, 256);
    let bytes: Vec<u8> = (0..512u32).flat_map(|i| (i as f32).to_le_bytes()).collect();
    m.write_tensor(&t, &bytes).unwrap();
    m
}

fn run_on(m: &mut Machine, src: &str) -> EngineRun {
    let insts = program(src);
    let engines = place(&insts, Gen::Cayman, &[]).unwrap();
    run_engines(m, &insts, &engines, &EngineOptions::default())
}

fn run(src: &str) -> EngineRun {
    run_on(&mut machine(), src)
}

/// POOL writes slot 0x0 (4 fp32 in 2 partitions).
fn pool_write(sync: &str) -> String {
    format!("iota src=7:[[1,4]] out=fp32 dst=sbuf[p0..2]+0x0:[[1,4]] {sync}\n")
}

/// DVE reads slot 0x0 into 0x300.
fn dve_read(sync: &str) -> String {
    format!(
        "ts_arith src=sbuf[p0..2]+0x0:[[1,4]] in=fp32 out=fp32 op0=mult imm0=2.0 \
         dst=sbuf[p0..2]+0x300:[[1,4]] {sync}\n"
    )
}

/// DVE writes slot 0x0 from 0x200.
fn dve_write(sync: &str) -> String {
    format!(
        "ts_arith src=sbuf[p0..2]+0x200:[[1,4]] in=fp32 out=fp32 op0=add imm0=1.0 \
         dst=sbuf[p0..2]+0x0:[[1,4]] {sync}\n"
    )
}

fn ordered(run: &EngineRun) {
    assert_eq!(run.stop, Stop::Completed, "{:?}", run.stop);
    assert!(run.races.is_empty(), "unexpected race: {:?}", run.races);
}

fn one_race(run: &EngineRun, kind: RaceKind) {
    assert_eq!(run.stop, Stop::Completed, "{:?}", run.stop);
    assert_eq!(run.race_count, 1, "{:?}", run.races);
    let r = &run.races[0];
    assert_eq!(r.kind, kind);
    assert_eq!(
        (r.first.engine, r.second.engine),
        (EngineId::Pool, EngineId::Dve)
    );
    assert_eq!(r.region.space, Space::Sbuf);
    assert_eq!(r.region.partitions, 0..2);
    assert_eq!(r.region.bytes, 0..16);
    assert_eq!(r.bytes, 16);
}

// ---- happens-before through each mode ------------------------------------------------------

#[test]
fn every_semaphore_wait_and_complete_update_orders_the_pair() {
    // (POOL's update, DVE's wait): each pair passes only after the update (isa-facts §1.3:
    // EQ/LT/LE/GT/GE, INC/DEC/ADD/SUB/WR).
    let cases = [
        (
            "update_mode=sem_inc_complete update_idx=3",
            "wait_mode=sem_ge_imm wait_idx=3 semaphore_value=1",
        ),
        (
            "update_mode=sem_add_imm_complete update_idx=3 semaphore_value=3",
            "wait_mode=sem_eq_imm wait_idx=3 semaphore_value=3",
        ),
        (
            "update_mode=sem_wr_imm_complete update_idx=3 semaphore_value=5",
            "wait_mode=sem_gt_imm wait_idx=3 semaphore_value=4",
        ),
        (
            "update_mode=sem_dec_complete update_idx=3",
            "wait_mode=sem_lt_imm wait_idx=3 semaphore_value=0",
        ),
        (
            "update_mode=sem_sub_imm_complete update_idx=3 semaphore_value=2",
            "wait_mode=sem_le_imm wait_idx=3 semaphore_value=-2",
        ),
    ];
    for (update, wait) in cases {
        let r = run(&(pool_write(update) + &dve_read(wait)));
        ordered(&r);
        // DVE waited for POOL: it starts when POOL's update lands.
        let (p, d) = (&r.steps[0], &r.steps[1]);
        assert_eq!(d.start_ps, p.end_ps, "{update} / {wait}");
        assert_eq!(d.enabled_by, Some(0));
        assert_eq!(d.waited_on, Some(Object::Semaphore(3)));
        // Without the update the same wait never holds (a deadlock), and without the wait
        // the pair races.
        let r = run(&(pool_write("") + &dve_read(wait)));
        assert!(matches!(r.stop, Stop::Deadlock(_)), "{wait}");
        one_race(
            &run(&(pool_write(update) + &dve_read(""))),
            RaceKind::ReadAfterWrite,
        );
    }
}

#[test]
fn register_valued_waits_and_updates_read_the_register() {
    let mut m = machine();
    m.set_register(5, 2).unwrap();
    // POOL writes register 5's value (2) into semaphore 1; DVE waits semaphore 1 >= r5.
    let r = run_on(
        &mut m,
        &(pool_write("update_mode=sem_wr_reg_complete update_idx=1 semaphore_value=5")
            + &dve_read("wait_mode=sem_ge_reg wait_idx=1 semaphore_value=5")),
    );
    ordered(&r);
    assert_eq!(m.semaphores()[1], 2);
    // SEM_SUB_REG: 0 - r5 = -2, and a LE_REG wait against register 6 = -2.
    let mut m = machine();
    m.set_register(5, 2).unwrap();
    m.set_register(6, (-2i32) as u32).unwrap();
    let r = run_on(
        &mut m,
        &(pool_write("update_mode=sem_sub_reg_complete update_idx=1 semaphore_value=5")
            + &dve_read("wait_mode=sem_le_reg wait_idx=1 semaphore_value=6")),
    );
    ordered(&r);
    // The wait holds before the update too (0 <= -2 is false, so it must wait): ordered.
    assert_eq!(r.steps[1].enabled_by, Some(0));
    // A register wait that already holds orders nothing: r7 = 0, semaphore 1 >= 0.
    let r = run(&(pool_write("update_mode=sem_inc_complete update_idx=1")
        + &dve_read("wait_mode=sem_ge_reg wait_idx=1 semaphore_value=7")));
    one_race(&r, RaceKind::ReadAfterWrite);
}

#[test]
fn events_order_through_set_clear_and_the_flipping_waits() {
    // EVT_SET_COMPLETE → EVT_SET and EVT_SET_THEN_CLEAR (which clears it again).
    for wait in ["evt_set", "evt_set_then_clear"] {
        let mut m = machine();
        let r = run_on(
            &mut m,
            &(pool_write("update_mode=evt_set_complete update_idx=4")
                + &dve_read(&format!("wait_mode={wait} wait_idx=4"))),
        );
        ordered(&r);
        assert_eq!(m.events()[4], wait == "evt_set");
    }
    // EVT_CLR_READ on a set event → EVT_CLEAR, and EVT_CLEAR_THEN_SET sets it.
    let mut m = machine();
    m.set_event(4, true);
    let r = run_on(
        &mut m,
        &("affine_select dtypes=fp32->fp32 cmp=ge fill_reg=0 pattern=0:[[1,4]] \
           src=sbuf[p0..2]+0x0:[[1,4]] dst=sbuf[p0..2]+0x100:[[1,4]] \
           update_mode=evt_clr_read update_idx=4\n"
            .to_string()
            + &dve_write("wait_mode=evt_clear_then_set wait_idx=4")),
    );
    // The read of slot 0 is ordered before DVE's write (the update fires on read).
    ordered(&r);
    assert!(m.events()[4]);
    // A flipping wait is itself a release, of what comes before it in its queue: DVE reads
    // slot 0, then a DVE instruction's wait sets event 8, which POOL waits for to write it.
    let flip = "ts_arith src=sbuf[p0..2]+0x200:[[1,4]] in=fp32 out=fp32 op0=add imm0=1.0 \
                dst=sbuf[p0..2]+0x280:[[1,4]] wait_mode=evt_clear_then_set wait_idx=8\n";
    let r = run(&(dve_read("") + flip + &pool_write("wait_mode=evt_set wait_idx=8")));
    ordered(&r);
    // The flipping instruction's own reads come after its wait: they race with POOL.
    let r = run(&(dve_read("wait_mode=evt_clear_then_set wait_idx=8")
        + &pool_write("wait_mode=evt_set wait_idx=8")));
    assert_eq!(r.race_count, 1, "{:?}", r.races);
    assert_eq!(r.races[0].kind, RaceKind::WriteAfterRead);
}

#[test]
fn a_read_update_orders_the_reads_but_not_the_writes() {
    // POOL's AffineSelect reads slot 0 and writes slot 0x100, incrementing on read.
    let affine = "affine_select dtypes=fp32->fp32 cmp=ge fill_reg=0 pattern=0:[[1,4]] \
                  src=sbuf[p0..2]+0x0:[[1,4]] dst=sbuf[p0..2]+0x100:[[1,4]] \
                  update_mode=sem_inc_read update_idx=2\n";
    let wait = "wait_mode=sem_ge_imm wait_idx=2 semaphore_value=1";
    // DVE overwriting the input after the wait: ordered (write-after-read is safe).
    let r = run(&(affine.to_string() + &dve_write(wait)));
    ordered(&r);
    // The update fired before the end.
    assert!(r.steps[1].start_ps < r.steps[0].end_ps);
    // DVE reading the output after the same wait: a race (the write is not covered).
    let read_out = format!(
        "ts_arith src=sbuf[p0..2]+0x100:[[1,4]] in=fp32 out=fp32 op0=mult imm0=2.0 \
         dst=sbuf[p0..2]+0x300:[[1,4]] {wait}\n"
    );
    let r = run(&(affine.to_string() + &read_out));
    assert_eq!(r.race_count, 1, "{:?}", r.races);
    assert_eq!(r.races[0].kind, RaceKind::ReadAfterWrite);
    assert_eq!(r.races[0].region.bytes, 0x100..0x110);
    // With the complete form both are ordered.
    let r = run(&(affine.replace("sem_inc_read", "sem_inc_complete") + &read_out));
    ordered(&r);
}

#[test]
fn each_race_kind_is_named_in_program_order() {
    one_race(
        &run(&(pool_write("") + &dve_read(""))),
        RaceKind::ReadAfterWrite,
    );
    one_race(
        &run(&(pool_write("") + &dve_write(""))),
        RaceKind::WriteAfterWrite,
    );
    // POOL's AffineSelect reads slot 0; DVE writes it: write-after-read.
    let r = run(
        &("affine_select dtypes=fp32->fp32 cmp=ge fill_reg=0 pattern=0:[[1,4]] \
           src=sbuf[p0..2]+0x0:[[1,4]] dst=sbuf[p0..2]+0x100:[[1,4]]\n"
            .to_string()
            + &dve_write("")),
    );
    one_race(&r, RaceKind::WriteAfterRead);
    // Disjoint bytes, or disjoint partitions, do not race.
    ordered(&run(
        &(pool_write("")
            + "ts_arith src=sbuf[p0..2]+0x10:[[1,4]] in=fp32 out=fp32 op0=mult imm0=2.0 \
               dst=sbuf[p0..2]+0x300:[[1,4]]\n"),
    ));
    ordered(&run(
        &(pool_write("")
            + "ts_arith src=sbuf[p2..4]+0x0:[[1,4]] in=fp32 out=fp32 op0=mult imm0=2.0 \
               dst=sbuf[p2..4]+0x300:[[1,4]]\n"),
    ));
    // Interleaved strided accesses (even and odd elements) share no byte.
    ordered(&run(
        "iota src=0:[[1,4]] out=fp32 dst=sbuf[p0..2]+0x0:[[2,4]]\n\
         ts_arith src=sbuf[p0..2]+0x4:[[2,4]] in=fp32 out=fp32 op0=mult imm0=2.0 \
         dst=sbuf[p0..2]+0x300:[[1,4]]\n",
    ));
}

#[test]
fn a_race_the_schedule_happened_to_order_is_still_reported() {
    // DVE first runs a long instruction (4096 elements), then reads what POOL wrote at the
    // start: the model runs them in order, happens-before does not.
    let r = run(&(pool_write("")
        + "ts_arith src=sbuf[p0..2]+0x1000:[[1,4096]] in=fp32 out=fp32 op0=mult imm0=2.0 \
               dst=sbuf[p0..2]+0x9000:[[1,4096]]\n"
        + &dve_read("")));
    assert_eq!(r.race_count, 1);
    let race = &r.races[0];
    assert!(r.steps[race.first.step].end_ps <= r.steps[race.second.step].start_ps);
    assert_eq!((race.first.index, race.second.index), (0, 2));
    assert_eq!(
        (race.first.operand, race.second.operand),
        ("dst_mem_pattern", "src_mem_pattern")
    );
    assert_eq!(race.second.queue_index, 1);
}

#[test]
fn program_order_and_transitivity_order_without_a_direct_edge() {
    // POOL writes slot 0, then runs another instruction that signals; DVE waits and reads.
    let r = run(&(pool_write("")
        + "iota src=0:[[1,4]] out=fp32 dst=sbuf[p0..2]+0x100:[[1,4]] \
               update_mode=sem_inc_complete update_idx=0\n"
        + &dve_read("wait_mode=sem_ge_imm wait_idx=0 semaphore_value=1")));
    ordered(&r);
    // A count off by one (>= 0 holds at once) orders nothing.
    let r = run(&(pool_write("update_mode=sem_inc_complete update_idx=0")
        + &dve_read("wait_mode=sem_ge_imm wait_idx=0 semaphore_value=0")));
    one_race(&r, RaceKind::ReadAfterWrite);
}

#[test]
fn a_wait_acquires_only_the_updates_it_needed() {
    // DVE increments twice; POOL's wait >= 1 is checked after both (POOL is slow to get
    // there) but needed only the first: POOL's write races with DVE's second instruction.
    let r = run(
        &("iota src=0:[[1,2048]] out=fp32 dst=sbuf[p0..2]+0x1000:[[1,2048]]\n".to_string()
            + &dve_read("update_mode=sem_inc_complete update_idx=1")
            + &dve_write("update_mode=sem_inc_complete update_idx=1")
            + &pool_write("wait_mode=sem_ge_imm wait_idx=1 semaphore_value=1")),
    );
    assert!(
        r.steps[3].start_ps > r.steps[2].end_ps,
        "POOL checks after both updates"
    );
    assert_eq!(r.race_count, 1, "{:?}", r.races);
    let race = &r.races[0];
    assert_eq!((race.first.index, race.second.index), (2, 3));
    assert_eq!(race.kind, RaceKind::WriteAfterWrite);
    // Waiting for 2 orders both.
    let r = run(
        &("iota src=0:[[1,2048]] out=fp32 dst=sbuf[p0..2]+0x1000:[[1,2048]]\n".to_string()
            + &dve_read("update_mode=sem_inc_complete update_idx=1")
            + &dve_write("update_mode=sem_inc_complete update_idx=1")
            + &pool_write("wait_mode=sem_ge_imm wait_idx=1 semaphore_value=2")),
    );
    ordered(&r);
}

#[test]
fn an_invalid_instruction_faults_before_its_wait_is_looked_at() {
    // Wait mode 9 is outside the enum: validation names it, as on one stream.
    let r = run(&(pool_write("") + &dve_read("wait_mode=9 wait_idx=1")));
    let Stop::Fault { fault, engine, .. } = &r.stop else {
        panic!("{:?}", r.stop)
    };
    assert_eq!(*engine, EngineId::Dve);
    assert!(matches!(fault.cause, FaultCause::Invalid { .. }), "{fault}");
}

// ---- deadlocks -----------------------------------------------------------------------------

#[test]
fn mutual_waits_are_a_deadlock_naming_each_wait_and_value() {
    let r = run(
        &(pool_write("wait_mode=sem_ge_imm wait_idx=1 semaphore_value=1 update_mode=sem_inc_complete update_idx=0")
            + &dve_read("wait_mode=sem_ge_imm wait_idx=0 semaphore_value=1 update_mode=sem_inc_complete update_idx=1")),
    );
    let Stop::Deadlock(d) = &r.stop else {
        panic!("{:?}", r.stop)
    };
    assert!(r.steps.is_empty());
    assert_eq!(d.blocked.len(), 2);
    assert_eq!(
        (d.blocked[0].engine, d.blocked[0].index),
        (EngineId::Pool, 0)
    );
    assert_eq!(d.blocked[0].detail, "semaphore 1 >= 1 (semaphore is 0)");
    assert_eq!(
        (d.blocked[1].engine, d.blocked[1].index),
        (EngineId::Dve, 1)
    );
    assert_eq!(d.blocked[1].detail, "semaphore 0 >= 1 (semaphore is 0)");
    assert!(matches!(
        d.blocked[1].wait,
        Wait::Semaphore { index: 0, .. }
    ));
}

#[test]
fn a_value_that_jumps_past_an_equality_wait_starves_it() {
    // POOL adds 2 twice; DVE waits for exactly 3, which the semaphore never holds.
    let r = run(
        &(pool_write("update_mode=sem_add_imm_complete update_idx=0 semaphore_value=2")
            + &pool_write("update_mode=sem_add_imm_complete update_idx=0 semaphore_value=2")
            + &dve_read("wait_mode=sem_eq_imm wait_idx=0 semaphore_value=3")),
    );
    let Stop::Deadlock(d) = &r.stop else {
        panic!("{:?}", r.stop)
    };
    assert_eq!(r.steps.len(), 2);
    assert_eq!(d.blocked.len(), 1);
    assert_eq!(d.blocked[0].detail, "semaphore 0 == 3 (semaphore is 4)");
    assert_eq!(d.at_ps, r.steps[1].end_ps);
}

#[test]
fn an_event_set_twice_is_a_fault_of_the_later_setter() {
    let r = run(&(pool_write("update_mode=evt_set_complete update_idx=2")
        + &dve_read("update_mode=evt_set_complete update_idx=2")));
    let Stop::Fault { fault, engine, .. } = &r.stop else {
        panic!("{:?}", r.stop)
    };
    // DVE's 64-cycle instruction ends first and sets it; POOL's second set is the fault.
    assert_eq!(*engine, EngineId::Pool);
    assert!(
        fault
            .to_string()
            .contains("set of event 2, which is already set"),
        "{fault}"
    );
}

#[test]
fn the_summary_and_critical_path_follow_the_wait_edge() {
    let r = run(
        &("iota src=0:[[1,512]] out=fp32 dst=sbuf[p0..2]+0x1000:[[1,512]] \
           update_mode=sem_inc_complete update_idx=0\n"
            .to_string()
            + &dve_read("wait_mode=sem_ge_imm wait_idx=0 semaphore_value=1")),
    );
    ordered(&r);
    // POOL: 150 + 512 cycles; DVE waits that long (in its own clock), then 64 cycles.
    let pool = r
        .summary
        .iter()
        .find(|s| s.engine == EngineId::Pool)
        .unwrap();
    let dve = r
        .summary
        .iter()
        .find(|s| s.engine == EngineId::Dve)
        .unwrap();
    assert_eq!(pool.busy_cycles, 662);
    assert_eq!(dve.busy_cycles, 64);
    assert_eq!(dve.wait_cycles, 529); // 662 POOL cycles at 1.2 GHz in 0.96 GHz cycles
    assert_eq!(r.critical_path, vec![0, 1]);
    assert_eq!(r.makespan_ps, r.steps[1].end_ps);
}

// ---- property: race-free programs equal a serial run ---------------------------------------

/// One random instruction: POOL writes a slot, or DVE reads one slot and writes another.
#[derive(Clone, Debug)]
enum Op {
    Pool { dst: u32, base: i32 },
    Dve { src: u32, dst: u32, k: u8 },
}

impl Op {
    fn is_pool(&self) -> bool {
        matches!(self, Op::Pool { .. })
    }
    fn reads(&self) -> Vec<u32> {
        match self {
            Op::Pool { .. } => vec![],
            Op::Dve { src, .. } => vec![*src],
        }
    }
    fn writes(&self) -> u32 {
        match self {
            Op::Pool { dst, .. } | Op::Dve { dst, .. } => *dst,
        }
    }
    fn conflicts(&self, o: &Op) -> bool {
        self.writes() == o.writes()
            || self.reads().contains(&o.writes())
            || o.reads().contains(&self.writes())
    }
    fn text(&self, sync: &str) -> String {
        match self {
            Op::Pool { dst, base } => format!(
                "iota src={base}:[[3,8]] out=fp32 dst=sbuf[p0..2]+{:#x}:[[1,8]] {sync}\n",
                dst * 0x40
            ),
            Op::Dve { src, dst, k } => format!(
                "ts_arith src=sbuf[p0..2]+{:#x}:[[1,8]] in=fp32 out=fp32 op0=add imm0={k}.0 \
                 dst=sbuf[p0..2]+{:#x}:[[1,8]] {sync}\n",
                src * 0x40,
                dst * 0x40
            ),
        }
    }
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0u32..4, -50i32..50).prop_map(|(dst, base)| Op::Pool { dst, base }),
        (0u32..4, 0u32..4, 1u8..9).prop_map(|(src, dst, k)| Op::Dve { src, dst, k }),
    ]
}

/// The program text: every instruction increments its engine's semaphore (POOL 0, DVE 1)
/// on completion and waits for the other engine's count through its latest conflicting
/// instruction, so the generation order is the one the synchronisation implies.
fn synchronised(ops: &[Op], drop_wait: Option<usize>) -> (String, Vec<bool>) {
    let mut text = String::new();
    let mut waited = Vec::new();
    let mut counts = [0u32; 2];
    for (j, o) in ops.iter().enumerate() {
        let (me, other) = if o.is_pool() { (0, 1) } else { (1, 0) };
        let need = ops[..j]
            .iter()
            .enumerate()
            .filter(|(_, p)| p.is_pool() != o.is_pool() && p.conflicts(o))
            .map(|(i, _)| {
                ops[..=i]
                    .iter()
                    .filter(|q| q.is_pool() != o.is_pool())
                    .count()
            })
            .max();
        let mut sync = format!("update_mode=sem_inc_complete update_idx={me}");
        let wait = need.filter(|_| drop_wait != Some(j));
        if let Some(n) = wait {
            sync += &format!(" wait_mode=sem_ge_imm wait_idx={other} semaphore_value={n}");
        }
        waited.push(need.is_some());
        counts[me] += 1;
        text += &o.text(&sync);
    }
    (text, waited)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn race_free_programs_end_as_their_serial_order(
        ops in prop::collection::vec(op(), 1..20),
        pool_start in 1u64..400,
        dve_ii in 1u64..200,
    ) {
        let (text, _) = synchronised(&ops, None);
        let insts = program(&text);
        let engines = place(&insts, Gen::Cayman, &[]).unwrap();
        let mut timing = Timing::default();
        timing.set("POOL_START", pool_start).unwrap();
        timing.set("DVE_MIN_II", dve_ii).unwrap();
        let opts = EngineOptions { timing, ..EngineOptions::default() };
        let mut multi = machine();
        let r = run_engines(&mut multi, &insts, &engines, &opts);
        prop_assert_eq!(&r.stop, &Stop::Completed);
        prop_assert!(r.races.is_empty(), "{:?}", r.races);
        let mut serial = machine();
        serial.run(&insts).unwrap();
        prop_assert!(multi == serial, "final state differs from the serial run");
    }

    #[test]
    fn dropping_a_needed_wait_is_reported_as_a_race(
        ops in prop::collection::vec(op(), 2..16),
        pick in any::<prop::sample::Index>(),
    ) {
        let (_, waited) = synchronised(&ops, None);
        let candidates: Vec<usize> = (0..ops.len()).filter(|&j| waited[j]).collect();
        prop_assume!(!candidates.is_empty());
        let j = candidates[pick.index(candidates.len())];
        // The conflict that needed the wait must not be ordered some other way: the
        // instruction's engine must not have waited earlier for a count covering it.
        let (text, _) = synchronised(&ops, Some(j));
        let insts = program(&text);
        let engines = place(&insts, Gen::Cayman, &[]).unwrap();
        let r = run_engines(&mut machine(), &insts, &engines, &EngineOptions::default());
        let earlier_waits = (0..j).any(|i| waited[i] && ops[i].is_pool() == ops[j].is_pool());
        if !earlier_waits {
            prop_assert!(r.race_count > 0, "no race reported without the wait of #{}", j);
            prop_assert!(r.races.iter().any(|x| x.second.index == j || x.first.index == j));
        }
    }
}

// ---- EventSemaphore (0xA0): the compiler's standalone sync record --------------------------

fn placed(src: &str, engines: &[(usize, Option<EngineId>)]) -> (Vec<Instruction>, Vec<EngineId>) {
    let insts = program(src);
    let placed = place(&insts, Gen::Cayman, engines).unwrap();
    (insts, placed)
}

#[test]
fn event_semaphore_records_order_engines_from_any_queue() {
    // POOL: write, then a record that increments semaphore 0; DVE: a record that waits for
    // it, then the read (isa-facts §1.3: the records carry the dependencies).
    let src = pool_write("")
        + "event_semaphore update1_mode=sem_inc_complete update1_idx=0\n"
        + "event_semaphore wait_mode=sem_ge_imm wait_idx=0 semaphore_value=1\n"
        + &dve_read("");
    let (insts, engines) = placed(
        &src,
        &[
            (1, Some(EngineId::Pool)),
            (2, Some(EngineId::Dve)),
            (3, None),
        ],
    );
    assert_eq!(
        engines,
        [EngineId::Pool, EngineId::Pool, EngineId::Dve, EngineId::Dve]
    );
    let mut m = machine();
    let r = run_engines(&mut m, &insts, &engines, &EngineOptions::default());
    ordered(&r);
    // The records take SYNC_CYCLES and the DVE record waits for POOL's.
    assert_eq!(
        r.steps.iter().find(|s| s.inst.index == 1).unwrap().cycles,
        64
    );
    let wait = r.steps.iter().find(|s| s.inst.index == 2).unwrap();
    assert_eq!(wait.waited_on, Some(Object::Semaphore(0)));
    assert_eq!(m.semaphores()[0], 1);
    let mut serial = machine();
    serial.run(&insts).unwrap();
    assert!(m == serial, "the same state as one stream");
    // Without the records the pair races; unplaced records go to SP.
    let bare = pool_write("") + &dve_read("");
    one_race(&run(&bare), RaceKind::ReadAfterWrite);
    let (_, engines) = placed(&src, &[]);
    assert_eq!(engines[1], EngineId::Sp);
}

#[test]
fn an_event_semaphore_needs_both_waits() {
    // Wait 0 holds (semaphore 0 >= 0), wait 1 (event 3 set) never does: a deadlock naming it.
    let src = "event_semaphore wait_mode=sem_ge_imm wait_idx=0 semaphore_value=0 \
               wait1_mode=evt_set wait1_idx=3 update1_mode=sem_inc_complete update1_idx=1\n";
    let (insts, engines) = placed(src, &[]);
    let r = run_engines(&mut machine(), &insts, &engines, &EngineOptions::default());
    let Stop::Deadlock(d) = &r.stop else {
        panic!("{:?}", r.stop)
    };
    assert_eq!(d.blocked[0].engine, EngineId::Sp);
    assert_eq!(d.blocked[0].detail, "event 3 set (it is clear)");
    // With the event set by the host, both hold and the update lands.
    let mut m = machine();
    m.set_event(3, true);
    let r = run_engines(&mut m, &insts, &engines, &EngineOptions::default());
    assert_eq!(r.stop, Stop::Completed);
    assert_eq!(m.semaphores()[1], 1);
}
