//! A kernel's recorded run replayed with new inputs (docs/python.md, "Traced
//! once per signature"): the replay computes what an eager run of the same calls on those
//! inputs computes, bit for bit; a run that depended on more than its recorded effects is
//! refused.

use tpb_isa::geometry::Space;
use tpb_isa::{AluOp, Dtype, Gen};
use tpb_nki::{Cmp, Core, NkiEngine, NkiError, Operand, Replay, Tile};
use tpb_sim::Config;

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// `out = (a + b) * 0.5 + 3` through HBM: two inputs, loads, a DVE add, a TensorScalar
/// whose immediates become constant registers, a store. Returns (inputs, output).
fn kernel(core: &mut Core, a: &[u8], b: &[u8]) -> (Vec<Tile>, Tile) {
    let ha = core.ndarray(&[64, 32], Dtype::FP32, Space::Hbm).unwrap();
    let hb = core.ndarray(&[64, 32], Dtype::FP32, Space::Hbm).unwrap();
    core.write(&ha, a).unwrap();
    core.write(&hb, b).unwrap();
    let out = core.ndarray(&[64, 32], Dtype::FP32, Space::Hbm).unwrap();
    let ta = core.load(&ha, None).unwrap();
    let tb = core.load(&hb, None).unwrap();
    let s = core.ndarray(&[64, 32], Dtype::FP32, Space::Sbuf).unwrap();
    core.tensor_tensor(&s, &ta, &tb, AluOp::ADD, NkiEngine::Vector)
        .unwrap();
    core.tensor_scalar(
        &s,
        &s,
        AluOp::MULT,
        Some(&Operand::Imm(0.5)),
        false,
        Some(AluOp::ADD),
        Some(&Operand::Imm(3.0)),
        false,
    )
    .unwrap();
    core.store(&out, &s).unwrap();
    (vec![ha, hb], out)
}

fn inputs(seed: u32) -> (Vec<u8>, Vec<u8>) {
    let a: Vec<f32> = (0..2048)
        .map(|k| (k as f32 * 0.37 + seed as f32).sin())
        .collect();
    let b: Vec<f32> = (0..2048)
        .map(|k| (k as f32 * 1.3 - seed as f32).cos())
        .collect();
    (f32_bytes(&a), f32_bytes(&b))
}

#[test]
fn a_replay_with_new_inputs_equals_an_eager_run_on_them() {
    let (a0, b0) = inputs(0);
    let mut traced = Core::new(Gen::Cayman);
    let (ins, out) = kernel(&mut traced, &a0, &b0);
    let hosts: Vec<_> = ins.iter().map(Tile::host).collect();
    let replay = Replay::of(&traced, &hosts).unwrap();
    assert_eq!(replay.steps(), 5);
    for seed in 1..4 {
        let (a, b) = inputs(seed);
        let mut eager = Core::new(Gen::Cayman);
        let (_, eager_out) = kernel(&mut eager, &a, &b);
        let replayed = replay.run(&[&a, &b]).unwrap();
        let got = replayed.read(&out).unwrap();
        assert_eq!(got, eager.read(&eager_out).unwrap(), "seed {seed}");
        assert_ne!(
            got,
            traced.read(&out).unwrap(),
            "seed {seed}: the new inputs were used"
        );
        assert_eq!(replayed.first_unwritten(&out).unwrap(), None);
        assert!(!replay.input_written(0) && !replay.input_written(1));
    }
}

#[test]
fn an_input_the_kernel_writes_is_known_written() {
    let mut core = Core::new(Gen::Cayman);
    let h = core.ndarray(&[8, 4], Dtype::FP32, Space::Hbm).unwrap();
    let other = core.ndarray(&[8, 4], Dtype::FP32, Space::Hbm).unwrap();
    core.write(&h, &f32_bytes(&[1.0; 32])).unwrap();
    core.write(&other, &f32_bytes(&[2.0; 32])).unwrap();
    let t = core.load(&h, None).unwrap();
    core.tensor_scalar(
        &t,
        &t,
        AluOp::MULT,
        Some(&Operand::Imm(2.0)),
        false,
        None,
        None,
        false,
    )
    .unwrap();
    core.store(&h, &t).unwrap();
    // The core answers the same for the eager run (its caller writes the input back).
    assert_eq!(core.written_after_placed(&h.host()), Some(true));
    assert_eq!(core.written_after_placed(&other.host()), Some(false));
    let replay = Replay::of(&core, &[h.host(), other.host()]).unwrap();
    assert!(replay.input_written(0));
    assert!(!replay.input_written(1));
    let r = replay
        .run(&[&f32_bytes(&[5.0; 32]), &f32_bytes(&[0.0; 32])])
        .unwrap();
    assert_eq!(r.read(&h).unwrap(), f32_bytes(&[10.0; 32]));
}

#[test]
fn a_run_that_read_device_data_or_touched_the_machine_is_not_replayable() {
    let (a, b) = inputs(0);
    let mut core = Core::new(Gen::Cayman);
    let (ins, _) = kernel(&mut core, &a, &b);
    let hosts: Vec<_> = ins.iter().map(Tile::host).collect();
    core.mark_host_read();
    let e = Replay::of(&core, &hosts).unwrap_err();
    assert!(matches!(e, NkiError::NotSupported { .. }), "{e}");
    assert!(e.to_string().contains("read device data"), "{e}");

    let mut core = Core::new(Gen::Cayman);
    let (ins, _) = kernel(&mut core, &a, &b);
    assert_eq!(core.written_after_placed(&ins[0].host()), Some(false));
    core.machine_mut();
    // A direct change may have written anywhere: the core cannot tell.
    assert_eq!(core.written_after_placed(&ins[0].host()), None);
    let hosts: Vec<_> = ins.iter().map(Tile::host).collect();
    let e = Replay::of(&core, &hosts).unwrap_err();
    assert!(e.to_string().contains("changed directly"), "{e}");
}

#[test]
fn inputs_must_be_written_before_the_first_instruction_and_keep_their_size() {
    let (a, b) = inputs(0);
    let mut core = Core::new(Gen::Cayman);
    let (ins, out) = kernel(&mut core, &a, &b);
    // The output was never written from the host: it is not an input.
    let e = Replay::of(&core, &[out.host()]).unwrap_err();
    assert!(e.to_string().contains("not written whole"), "{e}");
    let hosts: Vec<_> = ins.iter().map(Tile::host).collect();
    let replay = Replay::of(&core, &hosts).unwrap();
    let e = replay.run(&[&a]).unwrap_err();
    assert!(e.to_string().contains("1 inputs given"), "{e}");
    let e = replay.run(&[&a, &b[..8]]).unwrap_err();
    assert!(e.to_string().contains("input 1 has 8 bytes"), "{e}");
}

/// One call of a random kernel, on tile slots 0..4 (each [P, F] fp32 in SBUF).
#[derive(Clone, Debug)]
enum Call {
    Load {
        slot: usize,
        input: usize,
    },
    Scale {
        dst: usize,
        src: usize,
        mult: f32,
        add: f32,
    },
    Combine {
        dst: usize,
        a: usize,
        b: usize,
        max: bool,
    },
    Iota {
        slot: usize,
        step: i32,
    },
    Mask {
        dst: usize,
        src: usize,
        fill: f32,
    },
    Store {
        slot: usize,
        into_input: bool,
    },
}

fn call() -> impl proptest::strategy::Strategy<Value = Call> {
    use proptest::prelude::*;
    prop_oneof![
        (0..4usize, 0..2usize).prop_map(|(slot, input)| Call::Load { slot, input }),
        (0..4usize, 0..4usize, -4.0f32..4.0, -8.0f32..8.0).prop_map(|(dst, src, mult, add)| {
            Call::Scale {
                dst,
                src,
                mult,
                add,
            }
        }),
        (0..4usize, 0..4usize, 0..4usize, any::<bool>())
            .prop_map(|(dst, a, b, max)| Call::Combine { dst, a, b, max }),
        (0..4usize, -3..4i32).prop_map(|(slot, step)| Call::Iota { slot, step }),
        (0..4usize, 0..4usize, -100.0f32..100.0).prop_map(|(dst, src, fill)| Call::Mask {
            dst,
            src,
            fill
        }),
        (0..4usize, any::<bool>()).prop_map(|(slot, into_input)| Call::Store { slot, into_input }),
    ]
}

/// Runs `calls` on a fresh core (strict or not) with `inputs`; a call whose operand slot was never
/// written is skipped (the same on every run: it depends on the calls only). Returns the
/// core, the input tensors and the output tensor.
fn random_kernel(
    shape: [usize; 2],
    calls: &[Call],
    inputs: [&[u8]; 2],
    strict: bool,
) -> (Core, Vec<Tile>, Tile) {
    let mut core = Core::with_config(Config {
        strict,
        ..Config::new(Gen::Cayman)
    });
    let ins: Vec<Tile> = inputs
        .iter()
        .map(|bytes| {
            let t = core.ndarray(&shape, Dtype::FP32, Space::Hbm).unwrap();
            core.write(&t, bytes).unwrap();
            t
        })
        .collect();
    let out = core.ndarray(&shape, Dtype::FP32, Space::Hbm).unwrap();
    let slots: Vec<Tile> = (0..4)
        .map(|_| core.ndarray(&shape, Dtype::FP32, Space::Sbuf).unwrap())
        .collect();
    let mut live = [false; 4];
    let mut last = None;
    for c in calls {
        match *c {
            Call::Load { slot, input } => {
                core.dma_copy(&slots[slot], &ins[input], None, None)
                    .unwrap();
                live[slot] = true;
                last = Some(slot);
            }
            Call::Scale {
                dst,
                src,
                mult,
                add,
            } if live[src] => {
                core.tensor_scalar(
                    &slots[dst],
                    &slots[src],
                    AluOp::MULT,
                    Some(&Operand::Imm(f64::from(mult))),
                    false,
                    Some(AluOp::ADD),
                    Some(&Operand::Imm(f64::from(add))),
                    false,
                )
                .unwrap();
                live[dst] = true;
                last = Some(dst);
            }
            Call::Combine { dst, a, b, max } if live[a] && live[b] => {
                let op = if max { AluOp::MAX } else { AluOp::ADD };
                core.tensor_tensor(&slots[dst], &slots[a], &slots[b], op, NkiEngine::Vector)
                    .unwrap();
                live[dst] = true;
                last = Some(dst);
            }
            Call::Iota { slot, step } => {
                core.iota(&slots[slot], &[[i64::from(step), shape[1] as i64]], 0, 1)
                    .unwrap();
                live[slot] = true;
                last = Some(slot);
            }
            // The fill value lives in a constant register (set through the host API).
            Call::Mask { dst, src, fill } if live[src] => {
                core.affine_select(
                    &slots[dst],
                    &[[-1, shape[1] as i64]],
                    1,
                    &slots[src],
                    f64::from(fill),
                    Cmp::GreaterEqual,
                    0,
                )
                .unwrap();
                live[dst] = true;
                last = Some(dst);
            }
            Call::Store { slot, into_input } if live[slot] => {
                let to = if into_input { &ins[0] } else { &out };
                core.store(to, &slots[slot]).unwrap();
            }
            _ => {}
        }
    }
    // The last result always reaches the output.
    if let Some(slot) = last {
        core.store(&out, &slots[slot]).unwrap();
    }
    (core, ins, out)
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]
    /// Random kernels (loads, TensorScalar with fresh constant registers, TensorTensor,
    /// Iota, stores into the output or back into an input) recorded on one pair of inputs
    /// and replayed on another equal an eager run on the other, byte for byte, including the
    /// output's unwritten elements and the input the kernel overwrote; the HBM tensors of 16
    /// KiB and more are held in one piece and moved out whole. A strict replay's
    /// machine reuses a memory without zeroing it (docs/library.md, "Reuse for strict
    /// runs"): the replays before it leave their bytes there.
    #[test]
    fn random_kernels_replay_as_they_run(
        p in 1usize..=128,
        f in 1usize..=96,
        calls in proptest::collection::vec(call(), 1..12),
        seeds in (0u32..1000, 0u32..1000),
        strict in proptest::bool::ANY,
    ) {
        let make = |seed: u32, salt: f32| -> Vec<u8> {
            let v: Vec<f32> = (0..p * f).map(|k| ((k as f32 + salt) * 0.61 + seed as f32).sin() * 9.0).collect();
            f32_bytes(&v)
        };
        let (a0, b0) = (make(seeds.0, 0.0), make(seeds.0, 7.0));
        let (a1, b1) = (make(seeds.1, 1.0), make(seeds.1, 5.0));
        let (traced, ins, out) = random_kernel([p, f], &calls, [&a0, &b0], strict);
        let hosts: Vec<_> = ins.iter().map(Tile::host).collect();
        let replay = Replay::of(&traced, &hosts).unwrap();
        let (eager, eager_ins, eager_out) = random_kernel([p, f], &calls, [&a1, &b1], strict);
        let replayed = replay.run(&[&a1, &b1]).unwrap();
        proptest::prop_assert_eq!(replayed.first_unwritten(&out).unwrap(),
                                  eager.first_unwritten(&eager_out).unwrap());
        if eager.first_unwritten(&eager_out).unwrap().is_none() {
            proptest::prop_assert_eq!(replayed.read(&out).unwrap(), eager.read(&eager_out).unwrap());
        }
        for (r, e) in ins.iter().zip(&eager_ins) {
            proptest::prop_assert_eq!(replayed.read(r).unwrap(), eager.read(e).unwrap());
        }
        // The bytes moved out of the machine (placed tensors of 16 KiB and more) are those
        // read; asked for twice, the output overlaps itself and is read both times.
        let wanted: Vec<&Tile> = [&out, &ins[0], &ins[1], &out][..3 + seeds.0 as usize % 2].to_vec();
        let reads: Vec<Vec<u8>> = wanted.iter().map(|t| replayed.read(t).unwrap()).collect();
        proptest::prop_assert_eq!(replayed.into_reads(&wanted).unwrap(), reads);
    }
}
