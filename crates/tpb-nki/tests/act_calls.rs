//! `activation`, `activation_reduce` and `exponential` (isa-facts-pe-act-dma §2.2–§2.3,
//! §2.9–§2.12; nki-api §3.3): exact functions bit-exact against a plain reference of
//! `f(fma(x, scale, bias))`, table functions within 1 ulp of an f64 evaluation and labelled
//! approximate, the accumulator and its drain, refusals naming the missing fact, and the
//! emitted program re-run race-free on the engine scheduler.

use tpb_isa::geometry::Space;
use tpb_isa::{ActFunc, AluOp, Dtype, Gen};
use tpb_nki::{act_func, Core, NkiError, Operand, ReduceCmd, Tile};
use tpb_sim::engines::{EngineId, EngineOptions, Stop};
use tpb_sim::{Config, FaultCause, WarningKind};

type Named32 = (&'static str, fn(f32) -> f32);
type Named64 = (&'static str, fn(f64) -> f64);

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

fn wave(p: usize, j: usize) -> f32 {
    ((p * 37 + j * 11) % 41) as f32 / 8.0 - 2.5
}

fn ulps(a: f32, b: f32) -> u32 {
    (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs() as u32
}

// §2.2 + §2.11: the hardwired functions are exact; out = f(fma(x, scale, bias)).
#[test]
fn exact_functions_are_bit_exact_with_scale_and_bias() {
    let cases: [Named32; 5] = [
        ("relu", |t| if t > 0.0 { t } else { 0.0 }),
        ("copy", |t| t),
        ("square", |t| t * t),
        ("abs", f32::abs),
        ("sign", |t| {
            if t > 0.0 {
                1.0
            } else if t < 0.0 {
                -1.0
            } else {
                t
            }
        }),
    ];
    for (name, f) in cases {
        let mut core = Core::new(Gen::Cayman);
        let (x, xs) = filled(&mut core, &[32, 24], wave);
        let (b, bs) = filled(&mut core, &[32, 1], |p, _| p as f32 * 0.375 - 4.0);
        let dst = core.ndarray(&[32, 24], Dtype::FP32, Space::Sbuf).unwrap();
        let r = core
            .activation(
                &dst,
                act_func(name).unwrap(),
                &x,
                Some(&Operand::Tile(b)),
                &Operand::Imm(1.7),
                None,
                None,
                ReduceCmd::Idle,
            )
            .unwrap();
        assert!(r[0].warnings.is_empty(), "{name}: {:?}", r[0].warnings);
        let got = f32s(&core.read(&dst).unwrap());
        for (k, g) in got.iter().enumerate() {
            let want = f(xs[k].mul_add(1.7, bs[k / 24]));
            assert_eq!(g.to_bits(), want.to_bits(), "{name} element {k}");
        }
    }
}

// §2.11: table functions are their definition within 1 ulp, labelled approximate.
#[test]
fn table_functions_are_approximate_within_one_ulp() {
    let cases: [Named64; 4] = [
        ("exp", f64::exp),
        ("tanh", f64::tanh),
        ("sigmoid", |t| 1.0 / (1.0 + (-t).exp())),
        ("sqrt", |t| t.abs().sqrt()),
    ];
    for (name, f) in cases {
        let mut core = Core::new(Gen::Cayman);
        let (x, xs) = filled(&mut core, &[16, 40], wave);
        let dst = core.ndarray(&[16, 40], Dtype::FP32, Space::Sbuf).unwrap();
        let func = act_func(name).unwrap();
        // sqrt of |x|: feed |x| through the abs of a first activation (exact).
        let src = if name == "sqrt" {
            let a = core.ndarray(&[16, 40], Dtype::FP32, Space::Sbuf).unwrap();
            let abs = act_func("abs").unwrap();
            core.activation(
                &a,
                abs,
                &x,
                None,
                &Operand::Imm(1.0),
                None,
                None,
                ReduceCmd::Idle,
            )
            .unwrap();
            a
        } else {
            x
        };
        let r = core
            .activation(
                &dst,
                func,
                &src,
                None,
                &Operand::Imm(0.5),
                None,
                None,
                ReduceCmd::Idle,
            )
            .unwrap();
        assert!(
            r[0].warnings
                .iter()
                .any(|w| w.kind == WarningKind::Approximate),
            "{name} not labelled approximate"
        );
        let got = f32s(&core.read(&dst).unwrap());
        for (k, g) in got.iter().enumerate() {
            let want = f(f64::from(xs[k] * 0.5)) as f32;
            assert!(
                ulps(*g, want) <= 1,
                "{name}({}) = {g}, want {want}",
                xs[k] * 0.5
            );
        }
    }
}

// §2.3: reset_reduce zeroes then adds each row's fp32 outputs; reduce continues; the drain
// (0x24) writes the register; idle leaves it.
#[test]
fn accumulator_sums_rows_and_drains() {
    let mut core = Core::new(Gen::Cayman);
    let (x, xs) = filled(&mut core, &[8, 16], wave);
    let y = core.ndarray(&[8, 16], Dtype::FP32, Space::Sbuf).unwrap();
    let sums = core.ndarray(&[8, 1], Dtype::FP32, Space::Sbuf).unwrap();
    let relu = act_func("relu").unwrap();
    let one = Operand::Imm(1.0);
    core.activation_reduce(&y, relu, &x, Some(AluOp::ADD), &sums, None, &one)
        .unwrap();
    let row = |p: usize| (0..16).fold(0f32, |a, j| a + xs[p * 16 + j].max(0.0));
    let got = f32s(&core.read(&sums).unwrap());
    for (p, g) in got.iter().enumerate() {
        assert_eq!(g.to_bits(), row(p).to_bits(), "row {p}");
    }
    // idle leaves the register; reduce adds a second pass onto it.
    core.activation(&y, relu, &x, None, &one, None, None, ReduceCmd::Idle)
        .unwrap();
    core.activation(
        &y,
        relu,
        &x,
        None,
        &one,
        None,
        Some(&sums),
        ReduceCmd::Reduce,
    )
    .unwrap();
    let twice = f32s(&core.read(&sums).unwrap());
    for (p, g) in twice.iter().enumerate() {
        let r = row(p);
        let want = (0..16).fold(r, |a, j| a + xs[p * 16 + j].max(0.0));
        assert_eq!(g.to_bits(), want.to_bits(), "row {p}");
    }
    // Activate and the drain run on ACT.
    assert!(core
        .engines()
        .iter()
        .skip(1)
        .all(|&e| e == EngineId::Act || e == EngineId::Dve));
    assert!(core.engines().contains(&EngineId::Act));
}

// decisions §6.2: strict_exact turns an approximate result into a fault; exact ones run.
#[test]
fn strict_exact_refuses_table_functions_only() {
    let mut cfg = Config::new(Gen::Cayman);
    cfg.strict_exact = true;
    let mut core = Core::with_config(cfg);
    let (x, _) = filled(&mut core, &[4, 8], wave);
    let dst = core.ndarray(&[4, 8], Dtype::FP32, Space::Sbuf).unwrap();
    let one = Operand::Imm(1.0);
    core.activation(
        &dst,
        ActFunc::RELU,
        &x,
        None,
        &one,
        None,
        None,
        ReduceCmd::Idle,
    )
    .unwrap();
    let n = core.program().len();
    let e = core
        .activation(
            &dst,
            ActFunc::EXP,
            &x,
            None,
            &one,
            None,
            None,
            ReduceCmd::Idle,
        )
        .unwrap_err();
    match e {
        NkiError::Fault(f) => assert!(matches!(
            f.cause,
            FaultCause::Strict(WarningKind::Approximate, _)
        )),
        other => panic!("{other}"),
    }
    assert_eq!(core.program().len(), n, "nothing emitted");
}

// Refusals name the missing fact (§2.3, §2.9, §2.12) and emit nothing.
#[test]
fn refusals_name_the_missing_fact() {
    assert!(
        matches!(act_func("cos"), Err(NkiError::NotSupported { what }) if what.contains("§2.9"))
    );
    assert!(matches!(
        act_func("prelu"),
        Err(NkiError::NotSupported { .. })
    ));
    let mut core = Core::new(Gen::Cayman);
    let (x, _) = filled(&mut core, &[4, 8], wave);
    let dst = core.ndarray(&[4, 8], Dtype::FP32, Space::Sbuf).unwrap();
    let r = core.ndarray(&[4, 1], Dtype::FP32, Space::Sbuf).unwrap();
    let one = Operand::Imm(1.0);
    let mul = core.activation(
        &dst,
        ActFunc::EXP,
        &x,
        None,
        &one,
        Some(AluOp::MULT),
        Some(&r),
        ReduceCmd::ResetReduce,
    );
    assert!(matches!(
        mul,
        Err(NkiError::Operator {
            argument: "reduce_op",
            ..
        })
    ));
    let load = core.activation(
        &dst,
        ActFunc::EXP,
        &x,
        None,
        &one,
        None,
        None,
        ReduceCmd::LoadReduce,
    );
    assert!(matches!(load, Err(NkiError::NotSupported { .. })));
    let exp = core.exponential(&dst, &x, &Operand::Imm(0.0), ReduceCmd::Idle, None, None);
    assert!(matches!(exp, Err(NkiError::NotSupported { what }) if what.contains("mariana")));
    // A bf16 (P, 1) scale would be read as fp32 bits: refused.
    let bf = core.ndarray(&[4, 1], Dtype::BFLOAT16, Space::Sbuf).unwrap();
    let scale = core.activation(
        &dst,
        ActFunc::RELU,
        &x,
        None,
        &Operand::Tile(bf),
        None,
        None,
        ReduceCmd::Idle,
    );
    assert!(matches!(
        scale,
        Err(NkiError::Value {
            argument: "scale",
            ..
        })
    ));
    assert_eq!(core.program().len(), 0);
    // A dtype whose code does not fit the 4-bit nibble of in_bias_dtype is refused.
    let mut v5 = Core::new(Gen::Maverick);
    let i4 = v5.ndarray(&[4, 8], Dtype::FP8_EXP2, Space::Sbuf).unwrap();
    let d5 = v5.ndarray(&[4, 8], Dtype::FP32, Space::Sbuf).unwrap();
    let nib = v5.activation(
        &d5,
        ActFunc::RELU,
        &i4,
        None,
        &one,
        None,
        None,
        ReduceCmd::Idle,
    );
    assert!(matches!(
        nib,
        Err(NkiError::Shape {
            operand: "data",
            ..
        })
    ));
    // nki-api §3.3: a scalar bias needs v3+; on sunda it is a (P, 1) vector.
    let mut v2 = Core::new(Gen::Sunda);
    let (x2, _) = filled(&mut v2, &[4, 8], wave);
    let d2 = v2.ndarray(&[4, 8], Dtype::FP32, Space::Sbuf).unwrap();
    let (b2, _) = filled(&mut v2, &[4, 1], |_, _| 0.5);
    let relu = ActFunc::RELU;
    let imm = v2.activation(
        &d2,
        relu,
        &x2,
        Some(&Operand::Imm(0.5)),
        &one,
        None,
        None,
        ReduceCmd::Idle,
    );
    assert!(matches!(
        imm,
        Err(NkiError::Value {
            argument: "bias",
            ..
        })
    ));
    let vec = Operand::Tile(b2);
    v2.activation(
        &d2,
        relu,
        &x2,
        Some(&vec),
        &one,
        None,
        None,
        ReduceCmd::Idle,
    )
    .unwrap();
}

// §2.12: Exponential on DVE (mariana+) is exp(x − max_value), approximate.
#[test]
fn exponential_subtracts_the_max_on_dve() {
    let mut core = Core::new(Gen::Mariana);
    let (x, xs) = filled(&mut core, &[8, 16], wave);
    let (m, ms) = filled(&mut core, &[8, 1], |p, _| p as f32 * 0.25);
    let dst = core.ndarray(&[8, 16], Dtype::FP32, Space::Sbuf).unwrap();
    let r = core
        .exponential(&dst, &x, &Operand::Tile(m), ReduceCmd::Idle, None, None)
        .unwrap();
    assert!(r[0]
        .warnings
        .iter()
        .any(|w| w.kind == WarningKind::Approximate));
    assert_eq!(core.engines().last(), Some(&EngineId::Dve));
    let got = f32s(&core.read(&dst).unwrap());
    for (k, g) in got.iter().enumerate() {
        let want = f64::from(xs[k] - ms[k / 16]).exp() as f32;
        assert!(ulps(*g, want) <= 1, "element {k}");
    }
}

// §2.12 + assumption exp-operands: the running sum is the DVE lane accumulator:
// reset_reduce from 0, reduce continuing, load_reduce from reduce_init; 0x9b drains it.
#[test]
fn exponential_running_sum_in_the_dve_accumulator() {
    let mut core = Core::new(Gen::Mariana);
    let (x, _) = filled(&mut core, &[8, 16], wave);
    let dst = core.ndarray(&[8, 16], Dtype::FP32, Space::Sbuf).unwrap();
    let sums = core.ndarray(&[8, 1], Dtype::FP32, Space::Sbuf).unwrap();
    let zero = Operand::Imm(0.0);
    let r = core
        .exponential(&dst, &x, &zero, ReduceCmd::ResetReduce, Some(&sums), None)
        .unwrap();
    assert_eq!(r.len(), 2);
    let ys = f32s(&core.read(&dst).unwrap());
    let row = |p: usize, start: f32| (0..16).fold(start, |a, j| a + ys[p * 16 + j]);
    let got = f32s(&core.read(&sums).unwrap());
    for (p, g) in got.iter().enumerate() {
        assert_eq!(g.to_bits(), row(p, 0.0).to_bits(), "row {p}");
    }
    core.exponential(&dst, &x, &zero, ReduceCmd::Reduce, Some(&sums), None)
        .unwrap();
    let twice = f32s(&core.read(&sums).unwrap());
    for (p, g) in twice.iter().enumerate() {
        assert_eq!(g.to_bits(), row(p, row(p, 0.0)).to_bits(), "row {p}");
    }
    let init = Operand::Imm(100.0);
    core.exponential(
        &dst,
        &x,
        &zero,
        ReduceCmd::LoadReduce,
        Some(&sums),
        Some(&init),
    )
    .unwrap();
    let loaded = f32s(&core.read(&sums).unwrap());
    for (p, g) in loaded.iter().enumerate() {
        assert_eq!(g.to_bits(), row(p, 100.0).to_bits(), "row {p}");
    }
    let stray = core.exponential(&dst, &x, &zero, ReduceCmd::Reduce, None, Some(&init));
    assert!(matches!(
        stray,
        Err(NkiError::Value {
            argument: "reduce_init",
            ..
        })
    ));
    let (m, run) = core.schedule(&EngineOptions::default(), |_, _| {}).unwrap();
    assert!(run.races.is_empty() && matches!(run.stop, Stop::Completed));
    assert_eq!(core.first_difference(&m), None);
}

// Emission: DVE max → ACT exp with the row-sum drain → DVE reciprocal and scale (a
// softmax) re-runs on the engine scheduler with no race and the same memory.
#[test]
fn softmax_pipeline_runs_race_free_on_the_engines() {
    let mut core = Core::new(Gen::Cayman);
    let (x, xs) = filled(&mut core, &[16, 32], wave);
    let neg_max = core.ndarray(&[16, 1], Dtype::FP32, Space::Sbuf).unwrap();
    core.tensor_reduce(&neg_max, AluOp::MAX, &x, &[1], true, true)
        .unwrap();
    let e = core.ndarray(&[16, 32], Dtype::FP32, Space::Sbuf).unwrap();
    let sums = core.ndarray(&[16, 1], Dtype::FP32, Space::Sbuf).unwrap();
    core.activation(
        &e,
        ActFunc::EXP,
        &x,
        Some(&Operand::Tile(neg_max.clone())),
        &Operand::Imm(1.0),
        Some(AluOp::ADD),
        Some(&sums),
        ReduceCmd::ResetReduce,
    )
    .unwrap();
    let inv = core.ndarray(&[16, 1], Dtype::FP32, Space::Sbuf).unwrap();
    core.reciprocal(&inv, &sums).unwrap();
    let out = core.ndarray(&[16, 32], Dtype::FP32, Space::Sbuf).unwrap();
    core.tensor_scalar(
        &out,
        &e,
        AluOp::MULT,
        Some(&Operand::Tile(inv)),
        false,
        None,
        None,
        false,
    )
    .unwrap();
    let got = f32s(&core.read(&out).unwrap());
    for p in 0..16 {
        let row = &xs[p * 32..p * 32 + 32];
        let mx = row.iter().fold(f64::MIN, |a, &v| a.max(f64::from(v)));
        let s: f64 = row.iter().map(|&v| (f64::from(v) - mx).exp()).sum();
        for j in 0..32 {
            let want = (f64::from(row[j]) - mx).exp() / s;
            assert!((f64::from(got[p * 32 + j]) - want).abs() <= 4e-7 * want.max(1e-3));
        }
    }
    let (m, run) = core.schedule(&EngineOptions::default(), |_, _| {}).unwrap();
    assert!(run.races.is_empty(), "{:?}", run.races);
    assert!(matches!(run.stop, Stop::Completed));
    assert_eq!(core.first_difference(&m), None);
}
