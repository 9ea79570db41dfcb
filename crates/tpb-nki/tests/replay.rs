//! A kernel's recorded run replayed with new inputs (docs/python.md, "A kernel is traced
//! once per signature"): the replay computes what an eager run of the same calls on those
//! inputs computes, bit for bit; a run that depended on more than its recorded effects is
//! refused.

use tpb_isa::geometry::Space;
use tpb_isa::{AluOp, Dtype, Gen};
use tpb_nki::{Core, NkiEngine, NkiError, Operand, Replay, Tile};

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
    core.machine_mut();
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
