//! LoadWeights 0x01 / Matmul 0x02 / Activate 0x21 / ActivateQuantize 0x22 /
//! ActivationReadAccumulator 0x24 / Exponential 0x30 against plain references written here
//! from the documented semantics (isa-facts-pe-act-dma §1.2–§1.9, §2.2–§2.5, §2.12;
//! assumptions `pe-summation-order`, `act-rounding`, `act-accumulator`).

use tpb_isa::geometry::Space;
use tpb_isa::text::{asm, AsmOptions};
use tpb_isa::{Dtype, Gen, Instruction};
use tpb_sim::{Config, FaultCause, HostTensor, Machine, WarningKind};

type Named32 = (&'static str, fn(f32) -> f32);
type Named64 = (&'static str, fn(f64) -> f64);

fn program(gen: Gen, text: &str) -> Vec<Instruction> {
    let a = asm(text, &AsmOptions::new(gen)).expect("assembles");
    a.instructions().map(|s| s.inst).collect()
}

/// A deterministic pseudo-random f32 in [-2, 2) with few significant bits (bf16-exact).
fn rnd(state: &mut u64) -> f32 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    ((*state >> 40) as i32 % 512) as f32 / 128.0
}

fn write_f32(m: &mut Machine, space: Space, parts: u32, offset: u64, v: &[f32]) {
    let per = v.len() as u64 / u64::from(parts);
    let t = HostTensor::at(space, 0..parts)
        .offset(offset)
        .elements(Dtype::FP32, per);
    let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    m.write_tensor(&t, &bytes).unwrap();
}

fn read_f32(m: &Machine, space: Space, parts: u32, offset: u64, per: u64) -> Vec<f32> {
    let t = HostTensor::at(space, 0..parts)
        .offset(offset)
        .elements(Dtype::FP32, per);
    m.read_tensor(&t)
        .unwrap()
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// The plain reference of our documented order: exact products summed sequentially over k,
/// from the k = 0 product rounded once, each later step one fused multiply-add (assumption
/// `pe-summation-order`; isa-facts-pe-act-dma §1.9, §8 item 7).
fn reference_matmul(w: &[f32], x: &[f32], k: usize, m: usize, n: usize) -> Vec<f32> {
    let mut out = vec![0f32; m * n];
    for mi in 0..m {
        for j in 0..n {
            let mut acc = w[mi] * x[j];
            for kk in 1..k {
                acc = w[kk * m + mi].mul_add(x[kk * n + j], acc);
            }
            out[mi * n + j] = acc;
        }
    }
    out
}

fn mm_text(k: u32, m: u32, n: u32, flags: u8) -> String {
    format!(
        "load_weights src=sbuf[p0]+0x0:[[1,{m}]] in=fp32 fp32_mode=high \
         ctrl=[num_active_rows:{k},num_active_cols:{m},row_grp:0xf,col_grp:0xf]\n\
         matmul src=sbuf[p0]+0x1000:[[1,{n}]] in=fp32 fp32_mode=high \
         ctrl=[num_active_rows:{k},num_active_cols:{m},psum_accumulate_flags:{flags},\
         row_grp:0xf,col_grp:0xf] dst=psum[p0]+0x0:[[1,{n}]]\n"
    )
}

// §1.2/§1.9: dst = stationary.T @ moving, bit-exact against the plain reference of our
// order, and within a documented tolerance of an f64 reference.
#[test]
fn matmul_is_exact_per_our_order() {
    let (k, m, n) = (96u32, 80u32, 64u32);
    let mut st = 0x9E37_79B9_7F4A_7C15u64;
    let w: Vec<f32> = (0..k * m).map(|_| rnd(&mut st) * 1.37).collect();
    let x: Vec<f32> = (0..k * n).map(|_| rnd(&mut st) * 0.71).collect();
    let mut mach = Machine::new(Config::new(Gen::Cayman));
    write_f32(&mut mach, Space::Sbuf, k, 0, &w);
    write_f32(&mut mach, Space::Sbuf, k, 0x1000, &x);
    let r = mach
        .run(&program(Gen::Cayman, &mm_text(k, m, n, 3)))
        .unwrap();
    let got = read_f32(&mach, Space::Psum, m, 0, u64::from(n));
    let want = reference_matmul(&w, &x, k as usize, m as usize, n as usize);
    assert_eq!(
        got.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
        want.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
    );
    // The report says the result is exact per our order only.
    assert!(r
        .warnings()
        .any(|w| w.kind == WarningKind::ExactPerOurChoice));
    // Against f64: |err| ≤ K · 2^-24 · Σ|w·x| (the sequential-sum bound).
    for mi in 0..m as usize {
        for j in 0..n as usize {
            let (mut exact, mut mag) = (0f64, 0f64);
            for kk in 0..k as usize {
                let p = f64::from(w[kk * m as usize + mi]) * f64::from(x[kk * n as usize + j]);
                exact += p;
                mag += p.abs();
            }
            let tol = f64::from(k) * 2f64.powi(-24) * mag;
            assert!((f64::from(got[mi * n as usize + j]) - exact).abs() <= tol);
        }
    }
}

// §1.2: each LoadWeights replaces the whole stationary tile. The weights' buffers are reused
// (from the last LoadWeights, or from the last machine dropped on this thread), so a smaller
// tile after a larger one, on the same machine and on the next, must see none of the old
// values.
#[test]
fn weights_loaded_after_larger_ones_are_theirs_alone() {
    let mut st = 0x2545_F491_4F6C_DD1Du64;
    let mut check = |mach: &mut Machine, (k, m, n): (u32, u32, u32)| {
        let w: Vec<f32> = (0..k * m).map(|_| rnd(&mut st)).collect();
        let x: Vec<f32> = (0..k * n).map(|_| rnd(&mut st)).collect();
        write_f32(mach, Space::Sbuf, k, 0, &w);
        write_f32(mach, Space::Sbuf, k, 0x1000, &x);
        mach.run(&program(Gen::Cayman, &mm_text(k, m, n, 3)))
            .unwrap();
        let got = read_f32(mach, Space::Psum, m, 0, u64::from(n));
        let want = reference_matmul(&w, &x, k as usize, m as usize, n as usize);
        assert_eq!(
            got.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            want.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            "{k} x {m} weights, {n} columns"
        );
    };
    let mut first = Machine::new(Config::new(Gen::Cayman));
    check(&mut first, (128, 128, 32));
    check(&mut first, (3, 5, 7));
    check(&mut first, (64, 16, 8));
    drop(first);
    let mut next = Machine::new(Config::new(Gen::Cayman));
    check(&mut next, (2, 3, 4));
    check(&mut next, (128, 96, 16));
}

// isa-facts-pe-act-dma §1.9 and §8 item 7 recommend exact products summed in fp32 in row
// order (issue 29 item 25). K = 2, W = [1, 1 + 2^-12], X = [-1, 1 + 2^-12]: the second
// product 1 + 2^-11 + 2^-24 is not an fp32; rounded first (a tie, to even) it would give
// 2^-11, exact products give 2^-11 + 2^-24. Then accumulating onto PSUM adds the old value
// with one more fp32 rounding (§1.9).
#[test]
fn matmul_products_are_exact() {
    let a = 1.0 + 2f32.powi(-12);
    let (w, x) = ([1.0f32, a], [-1.0f32, a]);
    let exact = 2f32.powi(-11) + 2f32.powi(-24);
    let rounded_products = -1.0f32 + a * a;
    assert_ne!(exact.to_bits(), rounded_products.to_bits());
    let mut mach = Machine::new(Config::new(Gen::Cayman));
    write_f32(&mut mach, Space::Sbuf, 2, 0, &w);
    write_f32(&mut mach, Space::Sbuf, 2, 0x1000, &x);
    mach.run(&program(Gen::Cayman, &mm_text(2, 1, 1, 3)))
        .unwrap();
    let got = read_f32(&mach, Space::Psum, 1, 0, 1);
    assert_eq!(got[0].to_bits(), exact.to_bits(), "got {:e}", got[0]);
    // Accumulating (flags 0) onto the old PSUM value: one fp32 addition of the two sums.
    mach.run(&program(Gen::Cayman, &mm_text(2, 1, 1, 0)))
        .unwrap();
    let got = read_f32(&mach, Space::Psum, 1, 0, 1);
    assert_eq!(got[0].to_bits(), (exact + exact).to_bits());
}

// §1.5.2: flags without bit 0 accumulate onto PSUM; bit 0 overwrites.
#[test]
fn psum_accumulation_groups() {
    let (k, m, n) = (8u32, 4u32, 16u32);
    let mut st = 7u64;
    let w: Vec<f32> = (0..k * m).map(|_| rnd(&mut st)).collect();
    let x: Vec<f32> = (0..k * n).map(|_| rnd(&mut st)).collect();
    let mut mach = Machine::new(Config::new(Gen::Cayman));
    write_f32(&mut mach, Space::Sbuf, k, 0, &w);
    write_f32(&mut mach, Space::Sbuf, k, 0x1000, &x);
    let one = reference_matmul(&w, &x, k as usize, m as usize, n as usize);
    // start (1), middle (0), end (2): three accumulations of the same product.
    let mut text = mm_text(k, m, n, 1);
    text.push_str(mm_text(k, m, n, 0).lines().nth(1).unwrap());
    text.push('\n');
    text.push_str(mm_text(k, m, n, 2).lines().nth(1).unwrap());
    mach.run(&program(Gen::Cayman, &text)).unwrap();
    let got = read_f32(&mach, Space::Psum, m, 0, u64::from(n));
    for (g, o) in got.iter().zip(&one) {
        assert_eq!(g.to_bits(), ((o + o) + o).to_bits());
    }
    // A new group (flags 3) overwrites.
    mach.run(&program(Gen::Cayman, &mm_text(k, m, n, 3)))
        .unwrap();
    let got = read_f32(&mach, Space::Psum, m, 0, u64::from(n));
    assert_eq!(got, one);
}

// §1.2, §1.7: a Matmul whose shape differs from the loaded weights faults and changes nothing;
// fp32 pairs only with fp32; maverick is refused with the missing fact named.
#[test]
fn matmul_refusals() {
    let mut mach = Machine::new(Config::new(Gen::Cayman));
    write_f32(&mut mach, Space::Sbuf, 8, 0, &[1.0; 8 * 4]);
    write_f32(&mut mach, Space::Sbuf, 8, 0x1000, &[1.0; 8 * 16]);
    let p = program(Gen::Cayman, &mm_text(8, 4, 16, 3));
    mach.step(&p[0]).unwrap();
    let bad = program(Gen::Cayman, &mm_text(8, 2, 16, 3));
    let before = mach.clone();
    let e = mach.step(&bad[1]).unwrap_err();
    assert!(e.to_string().contains("loaded weights"), "{e}");
    assert!(mach == before);
    let bf = program(
        Gen::Cayman,
        "matmul src=sbuf[p0]+0x1000:[[1,16]] in=bf16 ctrl=[num_active_rows:8,num_active_cols:4,\
         psum_accumulate_flags:3,row_grp:0xf,col_grp:0xf] dst=psum[p0]+0x0:[[1,16]]",
    );
    let e = mach.step(&bf[0]).unwrap_err();
    assert!(e.to_string().contains("both must be"), "{e}");
    let mut mav = Machine::new(Config::new(Gen::Maverick));
    let i = Instruction::new(tpb_isa::opcode::Opcode::MATMUL, Gen::Maverick);
    // Maverick has no public PSUM: the validator already refuses the PSUM destination.
    let e = mav.execute_at(0, &i).unwrap_err();
    assert!(matches!(e.cause, FaultCause::Invalid { .. }), "{e}");
}

// `--strict-exact`: anything but exact is an error (decisions §6.2).
#[test]
fn strict_exact_refuses_matmul_and_table_functions() {
    let mut cfg = Config::new(Gen::Cayman);
    cfg.strict_exact = true;
    let mut mach = Machine::new(cfg);
    write_f32(&mut mach, Space::Sbuf, 8, 0, &[1.0; 8 * 4]);
    write_f32(&mut mach, Space::Sbuf, 8, 0x1000, &[1.0; 8 * 16]);
    let e = mach
        .run(&program(Gen::Cayman, &mm_text(8, 4, 16, 3)))
        .unwrap_err();
    assert!(matches!(
        e.cause,
        FaultCause::Strict(WarningKind::ExactPerOurChoice, _)
    ));
    let relu = act_text("relu", 0.0);
    mach.run(&program(Gen::Cayman, &relu)).unwrap();
    let e = mach
        .run(&program(Gen::Cayman, &act_text("exp", 0.0)))
        .unwrap_err();
    assert!(matches!(
        e.cause,
        FaultCause::Strict(WarningKind::Approximate, _)
    ));
}

fn act_text(func: &str, imm: f32) -> String {
    format!(
        "activate src=sbuf[p0..4]+0x1000:[[1,16]] in_bias_dtype=fp32->fp32 out=fp32 \
         activation_func={func} scale_value=2.0 bias_src_n=instruction bias=-0.5 imm={imm:?} \
         accumulator_cmd=zero_accumulate dst=sbuf[p0..4]+0x2000:[[1,16]]\n\
         act_read_accumulator dst_element_count=1 dtype=fp32 dst=sbuf[p0..4]+0x3000:[[1,1]]\n"
    )
}

fn run_act(func: &str, imm: f32, x: &[f32]) -> (Vec<f32>, Vec<f32>, Vec<WarningKind>) {
    let mut mach = Machine::new(Config::new(Gen::Cayman));
    write_f32(&mut mach, Space::Sbuf, 4, 0x1000, x);
    let r = mach
        .run(&program(Gen::Cayman, &act_text(func, imm)))
        .unwrap();
    (
        read_f32(&mach, Space::Sbuf, 4, 0x2000, 16),
        read_f32(&mach, Space::Sbuf, 4, 0x3000, 1),
        r.warnings().map(|w| w.kind).collect(),
    )
}

// §2.2, §2.11: hardwired functions are bit-exact against a plain reference
// (t = fma(x, scale, bias), then the function), and the accumulator drains through 0x24.
#[test]
fn hardwired_functions_are_exact() {
    let mut st = 3u64;
    let x: Vec<f32> = (0..64).map(|_| rnd(&mut st) * 3.3).collect();
    let refs: [Named32; 5] = [
        ("relu", |t| if t > 0.0 { t } else { 0.0 }),
        ("identity", |t| t),
        ("square", |t| t * t),
        ("abs", f32::abs),
        ("prelu", |t| if t < 0.0 { t * 0.25 } else { t }),
    ];
    for (name, f) in refs {
        let (y, acc, warns) = run_act(name, 0.25, &x);
        for c in 0..4 {
            let mut sum = 0f32;
            for k in 0..16 {
                let t = x[c * 16 + k].mul_add(2.0, -0.5);
                let want = f(t);
                assert_eq!(y[c * 16 + k].to_bits(), want.to_bits(), "{name}");
                sum += want;
            }
            assert_eq!(acc[c].to_bits(), sum.to_bits(), "{name} accumulator");
        }
        assert!(!warns.contains(&WarningKind::Approximate), "{name}");
    }
}

// §2.11: table functions are the definition (within 1 ulp of f64) and labelled approximate;
// sine outside [-π, π] is reported as outside its valid range.
#[test]
fn table_functions_are_labelled_approximate() {
    let x: Vec<f32> = (0..64).map(|i| (i as f32 - 32.0) / 9.0).collect();
    let defs: [Named64; 3] = [
        ("exp", f64::exp),
        ("tanh", f64::tanh),
        ("sigmoid", |t| 1.0 / (1.0 + (-t).exp())),
    ];
    for (name, f) in defs {
        let (y, _, warns) = run_act(name, 0.0, &x);
        assert!(warns.contains(&WarningKind::Approximate), "{name}");
        for (i, &xv) in x.iter().enumerate() {
            let t = xv.mul_add(2.0, -0.5);
            let want = f(f64::from(t)) as f32;
            let ulps = (y[i].to_bits() as i64 - want.to_bits() as i64).abs();
            assert!(ulps <= 1, "{name}({t}) = {} vs {want}", y[i]);
        }
    }
    let mut mach = Machine::new(Config::new(Gen::Cayman));
    write_f32(&mut mach, Space::Sbuf, 4, 0x1000, &x);
    let r = mach
        .run(&program(Gen::Cayman, &act_text("sin", 0.0)))
        .unwrap();
    assert!(r
        .warnings()
        .any(|w| w.kind == WarningKind::Approximate && w.message.contains("valid range")));
}

// §2.12, decision 18: Exponential runs on mariana as exp(x - max) and is refused on cayman.
#[test]
fn exponential_mariana_only() {
    let text = "exponential src=sbuf[p0..2]+0x0:[[1,8]] in=fp32 out=fp32 imm0=1.5 op0=bypass \
                op1=bypass dst=sbuf[p0..2]+0x100:[[1,8]]";
    let x: Vec<f32> = (0..16).map(|i| i as f32 / 4.0).collect();
    let mut mach = Machine::new(Config::new(Gen::Mariana));
    write_f32(&mut mach, Space::Sbuf, 2, 0, &x);
    mach.run(&program(Gen::Mariana, text)).unwrap();
    let y = read_f32(&mach, Space::Sbuf, 2, 0x100, 8);
    for (a, b) in y.iter().zip(&x) {
        assert_eq!(*a, (f64::from(b - 1.5)).exp() as f32);
    }
    let mut cay = Machine::new(Config::new(Gen::Cayman));
    write_f32(&mut cay, Space::Sbuf, 2, 0, &x);
    let p = program(Gen::Cayman, text);
    let e = cay.execute_at(0, &p[0]).unwrap_err();
    assert!(e.to_string().contains("exponential_wired"), "{e}");
}

// §2.12 + assumption exp-operands: the running sum is the DVE lane accumulator (drained by
// 0x9b): zero_accumulate from 0, load_accumulate from imm1, the fp32 outputs in order.
#[test]
fn exponential_running_sum_in_the_dve_accumulator() {
    let text = "exponential src=sbuf[p0..2]+0x0:[[1,8]] in=fp32 out=fp32 imm0=1.5 op0=bypass \
                op1=bypass accumulator_cmd=zero_accumulate dst=sbuf[p0..2]+0x100:[[1,8]]\n\
                dve_read_acc dtype=fp32 dst_element_count=1 dst=sbuf[p0..2]+0x200:[[1,1]]\n\
                exponential src=sbuf[p0..2]+0x0:[[1,8]] in=fp32 out=fp32 imm0=1.5 op0=bypass \
                op1=bypass accumulator_cmd=load_accumulate imm1=10.0 \
                dst=sbuf[p0..2]+0x100:[[1,8]]\n\
                dve_read_acc dtype=fp32 dst_element_count=1 dst=sbuf[p0..2]+0x204:[[1,1]]";
    let x: Vec<f32> = (0..16).map(|i| i as f32 / 4.0).collect();
    let mut mach = Machine::new(Config::new(Gen::Mariana));
    write_f32(&mut mach, Space::Sbuf, 2, 0, &x);
    mach.run(&program(Gen::Mariana, text)).unwrap();
    let sums = read_f32(&mach, Space::Sbuf, 2, 0x200, 2);
    for c in 0..2 {
        let row = |start: f32| {
            (0..8).fold(start, |a, k| {
                a + (f64::from(x[c * 8 + k] - 1.5)).exp() as f32
            })
        };
        assert_eq!(sums[c * 2].to_bits(), row(0.0).to_bits(), "lane {c}");
        assert_eq!(sums[c * 2 + 1].to_bits(), row(10.0).to_bits(), "lane {c}");
    }
}

// §2.4: ActivateQuantize rounds to nearest even and saturates to u8.
#[test]
fn activate_quantize_saturates() {
    let mut mach = Machine::new(Config::new(Gen::Cayman));
    write_f32(&mut mach, Space::Sbuf, 1, 0, &[-20.0, 0.03125, 7.5, 100.0]);
    write_f32(&mut mach, Space::Sbuf, 1, 0x200, &[0.0]);
    let text = "activate_quantize src=sbuf[p0..1]+0x0:[[1,4]] in_bias_dtype=fp32->fp32 out=uint8 \
                activation_func=identity quant_scale_value=2.0 dequant_scale_value=1.0 \
                bias_addr=0x200 quant_zero_value=128.0 dst=sbuf[p0..1]+0x400:[[1,4]]";
    mach.run(&program(Gen::Cayman, text)).unwrap();
    let t = HostTensor::at(Space::Sbuf, 0..1)
        .offset(0x400)
        .elements(Dtype::UINT8, 4);
    assert_eq!(mach.read_tensor(&t).unwrap(), [88, 128, 143, 255]);
}

// ---- NumPy/ml_dtypes fixtures (tools/gen_pe_act_fixtures.py) --------------------------------

fn fixture(name: &str) -> Vec<u32> {
    let path = format!(
        "{}/tests/fixtures/pe_act/{name}.u32",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path)
        .unwrap_or_else(|e| panic!("{path}: {e}"))
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Writes `rows` partitions of raw `dtype` elements (zero-extended bits, row-major).
fn write_raw(m: &mut Machine, rows: u32, offset: u64, dtype: Dtype, bits: &[u32]) {
    let size = dtype.size().unwrap_or(4);
    let per = bits.len() as u64 / u64::from(rows);
    let t = HostTensor::at(Space::Sbuf, 0..rows)
        .offset(offset)
        .elements(dtype, per);
    let bytes: Vec<u8> = bits
        .iter()
        .flat_map(|b| b.to_le_bytes()[..size].to_vec())
        .collect();
    m.write_tensor(&t, &bytes).unwrap();
}

fn same_bits(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

// §1.7, assumptions pe-summation-order and pe-fp32-modes: every accepted input dtype, the
// three fp32 modes and a mixed pair, bit for bit against NumPy/ml_dtypes computing our order,
// at every SIMD level.
#[test]
fn matmul_matches_numpy_fixtures() {
    let cases = [
        "fp8_exp3",
        "fp8_exp4",
        "fp8_exp5",
        "bfloat16",
        "fp16",
        "fp32_low",
        "fp32_high",
        "fp32_low_high",
        "bfloat16_fp8_exp4",
        "bfloat16_128x64x48",
    ];
    for case in cases {
        let f = fixture(&format!("matmul_{case}"));
        let [k, m, n, wd, xd, mode] = [0, 1, 2, 3, 4, 5].map(|i| f[i]);
        let (wd, xd) = (Dtype(wd as u8), Dtype(xd as u8));
        let mode = ["none", "low", "high", "low_high"][mode as usize];
        let (w, rest) = f[6..].split_at((k * m) as usize);
        let (x, want) = rest.split_at((k * n) as usize);
        let fp32 = |d: Dtype| {
            if d == Dtype::FP32 {
                format!(" fp32_mode={mode}")
            } else {
                String::new()
            }
        };
        let text = format!(
            "load_weights src=sbuf[p0]+0x0:[[1,{m}]] in={wd}{} \
             ctrl=[num_active_rows:{k},num_active_cols:{m},row_grp:0xf,col_grp:0xf]\n\
             matmul src=sbuf[p0]+0x1000:[[1,{n}]] in={xd}{} \
             ctrl=[num_active_rows:{k},num_active_cols:{m},psum_accumulate_flags:3,\
             row_grp:0xf,col_grp:0xf] dst=psum[p0]+0x0:[[1,{n}]]\n",
            fp32(wd),
            fp32(xd)
        );
        for level in tpb_sim::numerics::simd::available() {
            let mut mach = Machine::new(Config::new(Gen::Cayman));
            write_raw(&mut mach, k, 0, wd, w);
            write_raw(&mut mach, k, 0x1000, xd, x);
            let prog = program(Gen::Cayman, &text);
            tpb_sim::numerics::simd::with_level(level, || mach.run(&prog))
                .unwrap()
                .unwrap();
            let got = read_f32(&mach, Space::Psum, m, 0, u64::from(n));
            for (i, (g, &b)) in got.iter().zip(want).enumerate() {
                let w = f32::from_bits(b);
                assert!(
                    same_bits(*g, w),
                    "{case} at {level}: psum[{i}] = {g:?}, NumPy {w:?}"
                );
            }
        }
    }
}

// §2.9–§2.11, assumptions act-rounding and act-table-functions: hardwired functions bit for
// bit against NumPy float32, table functions within 1 ulp of the float64 definition
// (approximate, and labelled so).
#[test]
fn activate_matches_numpy_fixtures() {
    let exact = [
        "identity",
        "relu",
        "lrelu",
        "prelu",
        "square",
        "sign",
        "abs",
        "is_finite",
    ];
    let table = [
        "exp",
        "tanh",
        "sigmoid",
        "softplus",
        "ln",
        "sqrt",
        "rsqrt",
        "sin",
        "arctan",
        "erf",
        "gelu",
        "gelu_apprx_tanh",
        "silu",
        "mish",
        "reciprocal",
    ];
    for func in exact.iter().chain(&table) {
        let f = fixture(&format!("act_{func}"));
        let (x, want) = f.split_at(f.len() / 2);
        let xs: Vec<f32> = x.iter().map(|&b| f32::from_bits(b)).collect();
        let text = format!(
            "activate src=sbuf[p0..4]+0x1000:[[1,64]] in_bias_dtype=fp32->fp32 out=fp32 \
             activation_func={func} scale_value=2.0 bias_src_n=instruction bias=-0.5 \
             imm=0.25 dst=sbuf[p0..4]+0x2000:[[1,64]]\n"
        );
        let mut mach = Machine::new(Config::new(Gen::Cayman));
        write_f32(&mut mach, Space::Sbuf, 4, 0x1000, &xs);
        let r = mach.run(&program(Gen::Cayman, &text)).unwrap();
        let approximate = r.warnings().any(|w| w.kind == WarningKind::Approximate);
        let y = read_f32(&mach, Space::Sbuf, 4, 0x2000, 64);
        let is_exact = exact.contains(func);
        assert_eq!(approximate, !is_exact, "{func}: labelled approximate");
        for (i, (g, &b)) in y.iter().zip(want).enumerate() {
            let w = f32::from_bits(b);
            if is_exact {
                assert!(same_bits(*g, w), "{func}({}) = {g:?}, NumPy {w:?}", xs[i]);
            } else {
                let ulps = (g.to_bits() as i64 - b as i64).abs();
                assert!(ulps <= 1, "{func}({}) = {g:?}, NumPy {w:?}", xs[i]);
            }
        }
    }
}

/// One operand walk for [`dense_operand_path_matches_the_gather`]: `(asm pattern, element
/// offsets in walk order, elements of the span it covers)`.
type Walk = (String, Vec<usize>, usize);

/// A dense walk of `n` elements, or a strided / gapped one (the plain gather's walks).
fn walk(n: usize, dense: bool, st: &mut u64) -> Walk {
    if dense {
        return (format!("[[1,{n}]]"), (0..n).collect(), n);
    }
    *st ^= *st << 13;
    *st ^= *st >> 7;
    *st ^= *st << 17;
    let split = (1..n)
        .rev()
        .find(|d| n.is_multiple_of(*d) && *d > 1)
        .filter(|_| *st & 1 == 0);
    match split {
        // Two dims: contiguous runs of `a` elements, gaps between them.
        Some(a) => {
            let (b, gap) = (n / a, 1 + (*st >> 8) as usize % 3);
            let offs = (0..n).map(|e| (e / a) * (a + gap) + e % a).collect();
            (format!("[[1,{a}],[{},{b}]]", a + gap), offs, b * (a + gap))
        }
        None => {
            let s = 2 + (*st >> 8) as usize % 2;
            (
                format!("[[{s},{n}]]"),
                (0..n).map(|e| e * s).collect(),
                n * s,
            )
        }
    }
}

/// Random element bits of `dtype` with the edge cases mixed in: NaN payloads, signed
/// zeros, subnormals, infinities, and ordinary values of either sign.
fn edge_bits(dtype: Dtype, st: &mut u64) -> u32 {
    *st ^= *st << 13;
    *st ^= *st >> 7;
    *st ^= *st << 17;
    let r = (*st >> 16) as u32;
    let (bits, exp_bits) = match dtype.size() {
        Some(1) if dtype == Dtype::FP8_EXP3 => (8, 3),
        Some(1) if dtype == Dtype::FP8_EXP4 => (8, 4),
        Some(1) => (8, 5),
        Some(2) if dtype == Dtype::BFLOAT16 => (16, 8),
        Some(2) => (16, 5),
        _ => (32, 8),
    };
    let man = bits - 1 - exp_bits;
    let sign = (r >> 31) << (bits - 1);
    let exp_max = (1u32 << exp_bits) - 1;
    let payload = (r >> 3) & ((1 << man) - 1);
    // Infinities and NaNs rarely, so that most sums stay finite.
    let v = match r % 64 {
        0..=3 => 0,                             // ±0
        4..=7 => payload.max(1),                // subnormal
        8 => exp_max << man,                    // ±inf (a NaN in some fp8s)
        9 => (exp_max << man) | payload.max(1), // NaN with its payload
        // Ordinary values near 1 so that sums stay finite.
        _ => ((exp_max / 2 - 2 + (r >> 8) % 5) << man) | payload,
    };
    sign | v
}

// The dense operand path (one contiguous run per partition, decoded row by row; the PSUM
// written one row at a time) against the plain gather of the same elements laid out with
// strides and gaps: the same PSUM bits, for fp8/bf16/fp16/fp32 inputs, the three fp32
// modes, mixed pairs, accumulate on and off, partial partitions, at every SIMD level
// (assumption pe-summation-order; isa-facts-pe-act-dma §1.2, §1.5.2, §1.7).
#[test]
fn dense_operand_path_matches_the_gather() {
    use tpb_sim::numerics::simd;
    let dtypes = [
        Dtype::FP8_EXP3,
        Dtype::FP8_EXP4,
        Dtype::FP8_EXP5,
        Dtype::BFLOAT16,
        Dtype::FP16,
        Dtype::FP32,
    ];
    let mut st = 0x2545_F491_4F6C_DD1Du64;
    let mut next = |m: u64| {
        st ^= st << 13;
        st ^= st >> 7;
        st ^= st << 17;
        (st % m) as usize
    };
    for case in 0..18 {
        let xd = dtypes[case % dtypes.len()];
        let wd = if xd == Dtype::FP32 {
            xd
        } else {
            dtypes[next(5)]
        };
        let mode = [
            "",
            " fp32_mode=low",
            " fp32_mode=high",
            " fp32_mode=low_high",
        ][if xd == Dtype::FP32 {
            1 + case / dtypes.len() % 3
        } else {
            0
        }];
        // One case wide enough for the register tiles of every level.
        let (k, m, n) = if case == 5 {
            (40, 13, 83)
        } else {
            (1 + next(24), 1 + next(20), 1 + next(40))
        };
        // The operands start at partition 0 (row_grp 0xf, §1.5.8); a small result may land
        // at another quadrant of PSUM.
        let (pw, px) = (0u32, 0u32);
        let pd = if m <= 32 { 32 * next(4) as u32 } else { 0 };
        let flags = if (case + case / 6) % 2 == 0 { 3 } else { 0 };
        let mut seed = case as u64 * 0x9E37_79B9 + 1;
        let w: Vec<u32> = (0..k * m).map(|_| edge_bits(wd, &mut seed)).collect();
        let x: Vec<u32> = (0..k * n).map(|_| edge_bits(xd, &mut seed)).collect();
        let old: Vec<u32> = (0..m * n)
            .map(|_| edge_bits(Dtype::FP32, &mut seed))
            .collect();
        let mut walk_seed = seed;
        let walks: Vec<[Walk; 3]> = [true, false]
            .map(|dense| {
                [
                    walk(m, dense, &mut walk_seed),
                    walk(n, dense, &mut walk_seed),
                    walk(n, dense, &mut walk_seed),
                ]
            })
            .into();
        let mut results = Vec::new();
        for level in simd::available() {
            for [(wp, wo, wspan), (xp, xo, xspan), (dp, doff, dspan)] in &walks {
                let mut mach = Machine::new(Config::new(Gen::Cayman));
                // Each operand's span, its walk's elements placed and junk in the gaps.
                let place = |bits: &[u32], per: usize, offs: &[usize], span: usize, size| {
                    let mut img: Vec<u32> = (0..bits.len() / per * span)
                        .map(|i| 0x5A5A_5A5A ^ i as u32)
                        .collect();
                    for (row, chunk) in bits.chunks(per).enumerate() {
                        for (&o, &b) in offs.iter().zip(chunk) {
                            img[row * span + o] = b;
                        }
                    }
                    img.iter()
                        .flat_map(|b| b.to_le_bytes()[..size].to_vec())
                        .collect::<Vec<u8>>()
                };
                let put = |mach: &mut Machine, sp, p0: u32, rows, off, bytes: Vec<u8>| {
                    let per = bytes.len() as u64 / u64::from(rows);
                    let t = HostTensor::at(sp, p0..p0 + rows)
                        .offset(off)
                        .elements(Dtype::UINT8, per);
                    mach.write_tensor(&t, &bytes).unwrap();
                };
                let size = |d: Dtype| d.size().unwrap();
                put(
                    &mut mach,
                    Space::Sbuf,
                    pw,
                    k as u32,
                    0,
                    place(&w, m, wo, *wspan, size(wd)),
                );
                put(
                    &mut mach,
                    Space::Sbuf,
                    px,
                    k as u32,
                    0x1000,
                    place(&x, n, xo, *xspan, size(xd)),
                );
                put(
                    &mut mach,
                    Space::Psum,
                    pd,
                    m as u32,
                    0x40,
                    place(&old, n, doff, *dspan, 4),
                );
                // col_grp names the PSUM quadrant the result starts at (§1.5.8).
                let col_grp = if m <= 32 { 1 << (pd / 32) } else { 0xf };
                let ctrl = format!(
                    "ctrl=[num_active_rows:{k},num_active_cols:{m},row_grp:0xf,col_grp:{col_grp}"
                );
                let text = format!(
                    "load_weights src=sbuf[p{pw}]+0x0:{wp} in={wd}{} {ctrl}]\n\
                     matmul src=sbuf[p{px}]+0x1000:{xp} in={xd}{mode} \
                     {ctrl},psum_accumulate_flags:{flags}] dst=psum[p{pd}]+0x40:{dp}\n",
                    if wd == Dtype::FP32 { mode } else { "" },
                );
                let prog = program(Gen::Cayman, &text);
                simd::with_level(level, || mach.run(&prog))
                    .unwrap()
                    .unwrap();
                let t = HostTensor::at(Space::Psum, pd..pd + m as u32)
                    .offset(0x40)
                    .elements(Dtype::UINT8, *dspan as u64 * 4);
                let img = mach.read_tensor(&t).unwrap();
                let got: Vec<u32> = img
                    .chunks(dspan * 4)
                    .flat_map(|row| {
                        doff.iter().map(move |&o| {
                            u32::from_le_bytes(row[4 * o..4 * o + 4].try_into().unwrap())
                        })
                    })
                    .collect();
                results.push((level, wp.clone(), xp.clone(), dp.clone(), got));
            }
        }
        // Bit for bit; a NaN's payload is not part of the documented order (the vector
        // units of different levels may pick either operand's), so any NaN matches a NaN.
        let same =
            |a: u32, b: u32| a == b || (f32::from_bits(a).is_nan() && f32::from_bits(b).is_nan());
        let (_, _, _, _, want) = &results[0];
        for (level, wp, xp, dp, got) in &results {
            assert!(
                got.len() == want.len() && got.iter().zip(want).all(|(&a, &b)| same(a, b)),
                "case {case}: {wd} x {xd}{mode} {k}x{m}x{n} flags {flags} at {level}, walks \
                 {wp} {xp} {dp}"
            );
        }
    }
}

// transpose_mode 1 writes W[j][m] unchanged to PSUM element (m, j) (isa-facts-pe-act-dma
// §1.8, assumption pe-transpose): the cache-blocked path a dense result takes and the
// element-by-element path of a gapped one give exactly the definition's bits, NaN payloads
// and signed zeros included, for square and non-square weights and for the full 128 × 128.
#[test]
fn transposed_write_matches_the_element_form() {
    let mut seed = 0x0DDB_1A5E_5BAD_5EEDu64;
    for (k, m) in [(1, 1), (5, 9), (17, 3), (32, 32), (128, 128), (100, 128)] {
        let w: Vec<u32> = (0..k * m)
            .map(|_| edge_bits(Dtype::FP32, &mut seed))
            .collect();
        // The moving tile's values do not enter the result: give it junk.
        let x: Vec<u32> = (0..k * k)
            .map(|_| edge_bits(Dtype::FP32, &mut seed))
            .collect();
        for dense in [true, false] {
            let mut walk_seed = seed;
            let (dp, doff, dspan) = walk(k, dense, &mut walk_seed);
            let mut mach = Machine::new(Config::new(Gen::Cayman));
            let put = |mach: &mut Machine, sp, rows: usize, off, bits: &[u32]| {
                let per = (bits.len() / rows) as u64;
                let t = HostTensor::at(sp, 0..rows as u32)
                    .offset(off)
                    .elements(Dtype::FP32, per);
                let bytes: Vec<u8> = bits.iter().flat_map(|b| b.to_le_bytes()).collect();
                mach.write_tensor(&t, &bytes).unwrap();
            };
            put(&mut mach, Space::Sbuf, k, 0, &w);
            put(&mut mach, Space::Sbuf, k, 0x1000, &x);
            let ctrl = format!(
                "ctrl=[num_active_rows:{k},num_active_cols:{m},row_grp:0xf,col_grp:0xf,\
                 transpose_mode:1"
            );
            let text = format!(
                "load_weights src=sbuf[p0]+0x0:[[1,{m}]] in=fp32 fp32_mode=high {ctrl}]\n\
                 matmul src=sbuf[p0]+0x1000:[[1,{k}]] in=fp32 fp32_mode=high {ctrl},psum_accumulate_flags:3] \
                 dst=psum[p0]+0x40:{dp}\n"
            );
            mach.run(&program(Gen::Cayman, &text)).unwrap();
            let t = HostTensor::at(Space::Psum, 0..m as u32)
                .offset(0x40)
                .elements(Dtype::UINT8, dspan as u64 * 4);
            let img = mach.read_tensor(&t).unwrap();
            for (mi, row) in img.chunks(dspan * 4).enumerate() {
                for (j, &o) in doff.iter().enumerate() {
                    let got = u32::from_le_bytes(row[4 * o..4 * o + 4].try_into().unwrap());
                    assert_eq!(
                        got,
                        w[j * m + mi],
                        "{k} x {m} {}: PSUM element ({mi}, {j})",
                        if dense { "dense" } else { dp.as_str() }
                    );
                }
            }
        }
    }
}
