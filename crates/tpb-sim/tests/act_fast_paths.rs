//! Activate 0x21, ActivateQuantize 0x22 and Exponential 0x30 (isa-facts-pe-act-dma §2.2–§2.4,
//! §2.12; `docs/reference/pe-act.md`) through the engine's paths — the dense one-call rows,
//! the chunked walk of strided operands, the in-place snapshot, threads — against the plain
//! per-element definition written here: `t = fmaf(x, scale, bias)` (Exponential: `x - max`),
//! `y = apply(func, t, imm)` (`tpb_sim::numerics::act::apply`), ActivateQuantize's rounding,
//! the output conversion, and the running sum of the fp32 `y` in element order (assumptions
//! `act-rounding`, `act-accumulator`, `act-quantize`, `exp-operands`). Every case runs at a
//! random SIMD level and thread setting; inputs mix random bit patterns (NaN payloads,
//! infinities, signed zeros, subnormals) with values in the functions' working ranges.

mod support;
use support::Rng;

use tpb_isa::geometry::Space;
use tpb_isa::text::{asm, AsmOptions};
use tpb_isa::{ActFunc, Dtype, Gen, Instruction};
use tpb_sim::numerics::act::{apply, exactness};
use tpb_sim::numerics::{from_f32, simd, to_f32, Fp8Config};
use tpb_sim::{Config, HostTensor, Machine};

const GEN: Gen = Gen::Mariana;
const SRC: u64 = 0x0;
const DST: u64 = 0x8000;
const ACC: u64 = 0x1_0000;
const DTYPES: [Dtype; 9] = [
    Dtype::FP32,
    Dtype::BFLOAT16,
    Dtype::FP16,
    Dtype::FP8_EXP4,
    Dtype::FP8_EXP5,
    Dtype::UINT8,
    Dtype::INT8,
    Dtype::INT16,
    Dtype::INT32,
];

impl Rng {
    /// Raw bits of one `dtype` element: random bits or a value in [-12, 12).
    fn element(&mut self, dtype: Dtype) -> u32 {
        let size = dtype.size().unwrap_or(4) as u32;
        let mask = if size == 4 {
            u32::MAX
        } else {
            (1 << (8 * size)) - 1
        };
        if self.below(2) == 0 {
            self.next() as u32 & mask
        } else {
            let v = (self.below(1 << 20) as f32 / (1 << 20) as f32 - 0.5) * 24.0;
            from_f32(dtype, v, &Fp8Config::default()) & mask
        }
    }
}

fn program(text: &str) -> Vec<Instruction> {
    let a = asm(text, &AsmOptions::new(GEN)).unwrap_or_else(|e| panic!("{text}: {e}"));
    a.instructions().map(|s| s.inst).collect()
}

fn raw_bytes(dtype: Dtype, bits: &[u32]) -> Vec<u8> {
    let size = dtype.size().unwrap_or(4);
    bits.iter()
        .flat_map(|b| b.to_le_bytes()[..size].to_vec())
        .collect()
}

fn from_bytes(dtype: Dtype, bytes: &[u8]) -> Vec<u32> {
    let size = dtype.size().unwrap_or(4);
    bytes
        .chunks_exact(size)
        .map(|c| {
            let mut a = [0u8; 4];
            a[..size].copy_from_slice(c);
            u32::from_le_bytes(a)
        })
        .collect()
}

/// The instruction's kind and its lane operands.
#[derive(Clone, Copy, Debug)]
enum Kind {
    Activate {
        scale: f32,
        bias: f32,
        imm: f32,
        cmd: &'static str,
    },
    Quantize {
        dq: f32,
        bias: f32,
        qs: f32,
        qz: f32,
    },
    Exponential {
        max: f32,
        cmd: &'static str,
        seed: f32,
    },
}

struct Case {
    kind: Kind,
    func: ActFunc,
    din: Dtype,
    dout: Dtype,
    n: u32,
    count: u64,
    /// Element step of both operands (1: dense rows; 2: the chunked walk).
    step: u64,
    /// The output written over the input (the engine's snapshot).
    in_place: bool,
    input: Vec<u32>,
    acc0: Vec<f32>,
}

fn pattern(case: &Case, base: u64) -> String {
    format!(
        "sbuf[p0..{}]+{base:#x}:[[{},{}]]",
        case.n, case.step, case.count
    )
}

fn text(case: &Case) -> String {
    let src = pattern(case, SRC);
    let dst = pattern(case, if case.in_place { SRC } else { DST });
    let (din, dout, f) = (case.din, case.dout, case.func);
    let n = case.n;
    let seed_acc = format!(
        "activate src=sbuf[p0..{n}]+{ACC:#x}:[[1,1]] in_bias_dtype=fp32->fp32 out=fp32 \
         activation_func=identity scale_value=1.0 bias_src_n=instruction bias=0.0 imm=0.0 \
         accumulator_cmd=zero_accumulate dst=sbuf[p0..{n}]+{:#x}:[[1,1]]\n",
        ACC + 0x100
    );
    match case.kind {
        Kind::Activate {
            scale,
            bias,
            imm,
            cmd,
        } => format!(
            "{seed_acc}activate src={src} in_bias_dtype={din}->fp32 out={dout} \
             activation_func={f} scale_value={scale:?} bias_src_n=instruction bias={bias:?} \
             imm={imm:?} accumulator_cmd={cmd} dst={dst}\n\
             act_read_accumulator dst_element_count=1 dtype=fp32 \
             dst=sbuf[p0..{n}]+{:#x}:[[1,1]]\n",
            ACC + 0x200
        ),
        Kind::Quantize { dq, qs, qz, .. } => format!(
            "activate_quantize src={src} in_bias_dtype={din}->fp32 out=uint8 \
             activation_func={f} quant_scale_value={qs:?} dequant_scale_value={dq:?} \
             bias_addr={:#x} quant_zero_value={qz:?} dst={dst}\n",
            ACC + 0x300
        ),
        Kind::Exponential { max, cmd, seed } => format!(
            "exponential src={src} in={din} out={dout} imm0={max:?} op0=bypass op1=bypass \
             accumulator_cmd={cmd} imm1={seed:?} dst={dst}\n\
             dve_read_acc dtype=fp32 dst_element_count=1 dst=sbuf[p0..{n}]+{:#x}:[[1,1]]\n",
            ACC + 0x200
        ),
    }
}

/// The outputs (raw bits, lane-major) and the lanes' accumulators by the plain definition.
fn reference(case: &Case) -> (Vec<u32>, Vec<f32>) {
    let cfg = Fp8Config::default();
    let (n, count) = (case.n as usize, case.count as usize);
    let mut out = Vec::with_capacity(n * count);
    let mut accs = Vec::new();
    for c in 0..n {
        let xs = &case.input[c * count..(c + 1) * count];
        let mut sum = None;
        for &x in xs {
            let x = to_f32(case.din, x, &cfg);
            let (y, o) = match case.kind {
                Kind::Activate {
                    scale, bias, imm, ..
                } => {
                    let y = apply(case.func, libm::fmaf(x, scale, bias), imm).unwrap();
                    (y, from_f32(case.dout, y, &cfg))
                }
                Kind::Quantize { dq, bias, qs, qz } => {
                    let y = apply(case.func, libm::fmaf(x, dq, bias), 0.0).unwrap();
                    let q = (qs * y + qz).round_ties_even();
                    let q = if q.is_nan() { 0.0 } else { q.clamp(0.0, 255.0) };
                    (y, from_f32(Dtype::UINT8, q, &cfg))
                }
                Kind::Exponential { max, .. } => {
                    let y = apply(ActFunc::EXP, x - max, 0.0).unwrap();
                    (y, from_f32(case.dout, y, &cfg))
                }
            };
            out.push(o);
            let start = match case.kind {
                Kind::Activate { cmd, imm, .. } => match cmd {
                    "accumulate" => case.acc0[c],
                    "load_accumulate" => imm,
                    _ => 0.0,
                },
                // A fresh machine's DVE accumulators hold +0.
                Kind::Exponential { cmd, seed, .. } => match cmd {
                    "load_accumulate" => seed,
                    _ => 0.0,
                },
                Kind::Quantize { .. } => 0.0,
            };
            sum = Some(sum.unwrap_or(start) + y);
        }
        accs.push(sum.unwrap_or(0.0));
    }
    (out, accs)
}

fn random_case(r: &mut Rng) -> Case {
    let funcs: Vec<ActFunc> = (0..=255u8)
        .map(ActFunc)
        .filter(|&f| exactness(f).is_some())
        .collect();
    let exp_heavy = r.below(3) == 0;
    let func = if exp_heavy {
        ActFunc::EXP
    } else {
        r.pick(&funcs)
    };
    let din = r.pick(&DTYPES);
    let dout = r.pick(&DTYPES[..5]);
    let f = |r: &mut Rng, lo: f32, hi: f32| lo + (r.below(1 << 16) as f32 / 65536.0) * (hi - lo);
    let kind = match r.below(3) {
        0 => Kind::Activate {
            scale: if r.below(2) == 0 {
                1.0
            } else {
                f(r, -3.0, 3.0)
            },
            bias: if r.below(2) == 0 {
                0.0
            } else {
                f(r, -2.0, 2.0)
            },
            imm: f(r, -1.0, 1.0),
            cmd: r.pick(&[
                "idle",
                "zero",
                "accumulate",
                "zero_accumulate",
                "load_accumulate",
            ]),
        },
        1 => Kind::Quantize {
            dq: f(r, -2.0, 2.0),
            bias: f(r, -1.0, 1.0),
            qs: f(r, -40.0, 40.0),
            qz: f(r, 0.0, 255.0),
        },
        _ => {
            let cmd = r.pick(&["idle", "accumulate", "zero_accumulate", "load_accumulate"]);
            // §2.12: imm1 is 0 unless it seeds load_accumulate.
            let seed = if cmd == "load_accumulate" {
                f(r, -4.0, 4.0)
            } else {
                0.0
            };
            Kind::Exponential {
                max: f(r, -4.0, 12.0),
                cmd,
                seed,
            }
        }
    };
    // §2.4: ActivateQuantize reads fp32 or int32.
    let din = if matches!(kind, Kind::Quantize { .. }) {
        r.pick(&[Dtype::FP32, Dtype::INT32])
    } else {
        din
    };
    let n = 1 + r.below(6) as u32;
    let sizes = [r.below(8), r.below(300), 1000 + r.below(1100)];
    let mut count = 1 + r.pick(&sizes);
    // §2.12: an accumulating Exponential over a unit-step 16/8-bit input needs an even count.
    if matches!(kind, Kind::Exponential { .. }) {
        count += count % 2;
    }
    let in_place = din.size() == dout.size() && r.below(4) == 0;
    let step = if in_place { 1 } else { 1 + r.below(2) };
    let input = (0..u64::from(n) * count).map(|_| r.element(din)).collect();
    let acc0 = (0..n).map(|_| f(r, -8.0, 8.0)).collect();
    Case {
        kind,
        func: if matches!(kind, Kind::Exponential { .. }) {
            ActFunc::EXP
        } else {
            func
        },
        din,
        dout: if matches!(kind, Kind::Quantize { .. }) {
            Dtype::UINT8
        } else {
            dout
        },
        n,
        count,
        step,
        in_place,
        input,
        acc0,
    }
}

/// Runs `case` and returns (outputs, accumulators).
fn run(case: &Case, threads: usize, min: u64) -> (Vec<u32>, Vec<f32>) {
    let mut cfg = Config::new(GEN);
    cfg.max_elements = u64::MAX / 4;
    let mut m = Machine::new(cfg);
    m.set_threading(threads, min);
    let n = case.n;
    // Element k of lane c at SRC + k·step·size.
    let span = case.count * case.step;
    let mut bits = vec![0u32; (u64::from(n) * span) as usize];
    for c in 0..n as usize {
        for k in 0..case.count as usize {
            bits[c * span as usize + k * case.step as usize] =
                case.input[c * case.count as usize + k];
        }
    }
    let t = HostTensor::at(Space::Sbuf, 0..n)
        .offset(SRC)
        .elements(case.din, span);
    m.write_tensor(&t, &raw_bytes(case.din, &bits)).unwrap();
    let lanes = |off: u64, v: &[f32]| {
        (
            HostTensor::at(Space::Sbuf, 0..n)
                .offset(off)
                .elements(Dtype::FP32, 1),
            v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>(),
        )
    };
    let (acc_t, acc_b) = lanes(ACC, &case.acc0);
    m.write_tensor(&acc_t, &acc_b).unwrap();
    let (bias_t, bias_b) = lanes(ACC + 0x300, &vec![0.0; n as usize]);
    if let Kind::Quantize { bias, .. } = case.kind {
        let (t, b) = lanes(ACC + 0x300, &vec![bias; n as usize]);
        m.write_tensor(&t, &b).unwrap();
    } else {
        m.write_tensor(&bias_t, &bias_b).unwrap();
    }
    let text = text(case);
    let prog = program(&text);
    m.run(&prog).unwrap_or_else(|e| panic!("{text}: {e}"));
    let dst_off = if case.in_place { SRC } else { DST };
    let t = HostTensor::at(Space::Sbuf, 0..n)
        .offset(dst_off)
        .elements(case.dout, span);
    let all = from_bytes(case.dout, &m.read_tensor(&t).unwrap());
    let out = (0..n as usize)
        .flat_map(|c| {
            let all = &all;
            (0..case.count as usize).map(move |k| all[c * span as usize + k * case.step as usize])
        })
        .collect();
    let acc_t = HostTensor::at(Space::Sbuf, 0..n)
        .offset(ACC + 0x200)
        .elements(Dtype::FP32, 1);
    let accs = m
        .read_tensor(&acc_t)
        .unwrap()
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    (out, accs)
}

#[test]
fn act_paths_match_the_plain_definition() {
    let levels = simd::available();
    let mut r = Rng(0x5DEE_CE66_D1CE_4E5B);
    for i in 0..60 {
        let case = random_case(&mut r);
        let level = levels[i % levels.len()];
        let (threads, min) = [(1, u64::MAX), (3, 0)][i / levels.len() % 2];
        let (want, want_acc) = reference(&case);
        let (got, got_acc) = simd::with_level(level, || run(&case, threads, min)).unwrap();
        let what = format!(
            "case {i} {level} threads {threads}: {:?} {} {}->{} n {} count {} step {} in place {}",
            case.kind, case.func, case.din, case.dout, case.n, case.count, case.step, case.in_place
        );
        for (k, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!(g, w, "{what}: element {k} (input {:#x})", case.input[k]);
        }
        let accumulates = match case.kind {
            Kind::Activate { cmd, .. } | Kind::Exponential { cmd, .. } => {
                cmd != "idle" && cmd != "zero"
            }
            Kind::Quantize { .. } => false,
        };
        if accumulates {
            for (c, (g, w)) in got_acc.iter().zip(&want_acc).enumerate() {
                assert!(
                    g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()),
                    "{what}: accumulator {c}: {g} vs {w}"
                );
            }
        }
    }
}
