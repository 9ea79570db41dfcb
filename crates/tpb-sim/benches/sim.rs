//! Simulator throughput, as ratios to a plain memory copy measured in the same run.
//! Run: `cargo bench -p tpb-sim` (`-- WORD` runs the cases whose name contains WORD).
//!
//! "x memcpy" is the instruction's time over the time `copy_from_slice` takes to copy as
//! many bytes as the instruction touches (input + output bytes), both on one thread.
//! Goals (issue 11): ≤ 2 x memcpy on one thread; ≥ 1.7 x from 1 to 2 threads on large bf16
//! tiles; ≤ 200 ns per one-element instruction.

use std::hint::black_box;
use std::time::{Duration, Instant};
use tpb_isa::geometry::Space;
use tpb_isa::wire::{Addr4, Data4d, DtypePair, ImmVal, Tensor};
use tpb_isa::{
    AffineSelectCmp, AluOp, Body, Dtype, Gen, Instruction, Opcode, RevOps, TensorSubdim,
};
use tpb_sim::numerics::{encode_slice_from_f32, Fp8Config};
use tpb_sim::{Config, FlopKind, Flops, HostTensor, Machine};

const GEN: Gen = Gen::Cayman;
const P: u32 = 128;

/// On-CPU nanoseconds of every thread of this process so far (Linux `schedstat`), so that
/// figures do not count the time other processes hold the cores; `None` elsewhere.
fn cpu_ns() -> Option<u64> {
    let mut total = 0u64;
    for t in std::fs::read_dir("/proc/self/task").ok()? {
        let stat = std::fs::read_to_string(t.ok()?.path().join("schedstat")).ok()?;
        total += stat.split_whitespace().next()?.parse::<u64>().ok()?;
    }
    Some(total)
}

/// Seconds per iteration: wall clock and on-CPU (all threads; the wall clock where
/// `schedstat` is missing).
#[derive(Clone, Copy)]
struct Timing {
    wall: f64,
    cpu: f64,
}

/// Best time per iteration of `f` over several rounds of at least `min` each.
fn time(min: Duration, mut f: impl FnMut()) -> Timing {
    f(); // warm up (page faults, caches)
    let mut best = Timing {
        wall: f64::INFINITY,
        cpu: f64::INFINITY,
    };
    for _ in 0..5 {
        let start = Instant::now();
        let cpu0 = cpu_ns();
        let mut iters = 0u64;
        // Check the clock every 64 calls so tiny cases do not time the clock.
        while start.elapsed() < min {
            for _ in 0..64 {
                f();
            }
            iters += 64;
        }
        let wall = start.elapsed().as_secs_f64() / iters as f64;
        let cpu = match (cpu0, cpu_ns()) {
            (Some(a), Some(b)) => (b - a) as f64 * 1e-9 / iters as f64,
            _ => wall,
        };
        best.wall = best.wall.min(wall);
        best.cpu = best.cpu.min(cpu);
    }
    best
}

/// The same bytes copied with `copy_from_slice`, per partition row as the machine lays
/// them out.
fn memcpy_time(bytes_per_partition: usize) -> Timing {
    let src = vec![1u8; P as usize * bytes_per_partition];
    let mut dst = vec![0u8; P as usize * bytes_per_partition];
    time(Duration::from_millis(200), || {
        dst.copy_from_slice(black_box(&src));
        black_box(&mut dst);
    })
}

/// [`memcpy_time`] split over two threads (each copies half the partitions), for the
/// 1 → 2 thread scaling of a plain copy: the bound for a memory-bound kernel.
fn memcpy_time_2t(bytes_per_partition: usize) -> Timing {
    let src = vec![1u8; P as usize * bytes_per_partition];
    let mut dst = vec![0u8; P as usize * bytes_per_partition];
    let half = src.len() / 2;
    time(Duration::from_millis(200), || {
        let (d0, d1) = dst.split_at_mut(half);
        let (s0, s1) = src.split_at(half);
        std::thread::scope(|t| {
            t.spawn(|| d1.copy_from_slice(black_box(s1)));
            d0.copy_from_slice(black_box(s0));
        });
        black_box(&mut dst);
    })
}

/// The 1-minute load average (Linux), printed beside wall-clock figures.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "?".into())
}

fn fill(m: &mut Machine, off: u64, dtype: Dtype, epp: u64) {
    let size = dtype.size().unwrap();
    let bytes: Vec<u8> = (0..P as u64 * epp)
        .flat_map(|i| {
            let x = ((i % 1000) as f32 - 500.0) * 0.37;
            let b = match size {
                4 => x.to_bits(),
                2 => u32::from(half::bf16::from_f32(x).to_bits()),
                _ => (i % 251) as u32,
            };
            b.to_le_bytes()[..size].to_vec()
        })
        .collect();
    m.write_tensor(
        &HostTensor::at(Space::Sbuf, 0..P)
            .offset(off)
            .elements(dtype, epp),
        &bytes,
    )
    .unwrap();
}

fn tensor4(off: u32, nums: [u16; 4]) -> Tensor<4> {
    let mut t = Tensor {
        start_addr: Addr4::at(GEN, Space::Sbuf, 0, off).unwrap(),
        step_elem: [1; 4],
        num_elem: nums,
    };
    let mut acc = 1i32;
    for (s, &n) in t.step_elem.iter_mut().zip(&nums) {
        *s = acc.min(i32::from(i16::MAX)) as i16;
        acc *= i32::from(n);
    }
    t
}

fn ptr_multi(din: Dtype, dout: Dtype, op: AluOp, x: u16, w: u16, dst_off: u32) -> Instruction {
    let mut i = Instruction::new(Opcode(0x4F), GEN);
    if let Body::S4d4Tsm(s) = &mut i.body {
        s.src_mem_pattern = tensor4(0, [x, 1, 1, w]);
        s.dst_mem_pattern = tensor4(dst_off, [x, 1, 1, w]);
        s.in_dtype = din;
        s.out_dtype = dout;
        s.num_active_channels = P as u8;
        s.op = op;
        s.op_dim = TensorSubdim::XYZ;
        s.reverse_operands = RevOps::NONE;
    }
    i
}

struct Row {
    name: String,
    elements: u64,
    /// Bytes touched (read + written) per element.
    touched: usize,
    secs: Timing,
    copy_secs: Timing,
}

fn machine() -> Machine {
    // The run budget would stop the timing loops: a benchmark runs many large instructions.
    let mut m = Machine::new(Config {
        max_run_elements: u64::MAX,
        ..Config::new(GEN)
    });
    m.set_threading(1, u64::MAX);
    for c in 0..P as usize {
        m.set_flops(
            c,
            Flops {
                slots: [1.5f32, 0.5, 2.0, -1.0, 3.0, 0.25, -2.0, 1.0].map(f32::to_bits),
                loaded: 8,
                kind: Some(FlopKind::Arith),
            },
        )
        .unwrap();
    }
    m
}

/// PtrMulti over the largest tile that fits src and dst side by side in a 224 KiB
/// partition, on `threads` threads.
fn bench_ptr_multi(din: Dtype, dout: Dtype, op: AluOp, threads: usize) -> Row {
    let size_in = din.size().unwrap();
    let size_out = dout.size().unwrap();
    let per_part = (224 * 1024 / (size_in + size_out)).min(8 * 4095);
    bench_ptr_multi_n(din, dout, op, per_part, threads)
}

/// PtrMulti over 128 partitions × `per_part` elements (W = 8 slices).
fn bench_ptr_multi_n(din: Dtype, dout: Dtype, op: AluOp, per_part: usize, threads: usize) -> Row {
    let size_in = din.size().unwrap();
    let size_out = dout.size().unwrap();
    let w = 8u16;
    let x = (per_part / 8) as u16;
    let epp = u64::from(x) * u64::from(w);
    let mut m = machine();
    m.set_threading(threads, 0);
    fill(&mut m, 0, din, epp);
    let dst_off = (epp as usize * size_in).next_multiple_of(64) as u32;
    let i = ptr_multi(din, dout, op, x, w, dst_off);
    m.step(&i).expect("ptr_multi");
    let secs = time(Duration::from_millis(300), || {
        m.step(black_box(&i)).unwrap();
    });
    Row {
        name: format!("PtrMulti {din}->{dout} {op} 128x{epp} {threads}t"),
        touched: size_in + size_out,
        elements: epp * u64::from(P),
        secs,
        copy_secs: memcpy_time(epp as usize * (size_in + size_out)),
    }
}

/// TensorScalar MULT then ADD by immediates over 128 × 8192, one thread.
fn bench_tensor_scalar(din: Dtype, dout: Dtype) -> Row {
    bench_tensor_scalar_n(din, dout, 8192)
}

/// TensorScalar MULT then ADD by immediates over 128 × `f`, one thread.
fn bench_tensor_scalar_n(din: Dtype, dout: Dtype, f: u16) -> Row {
    let (size_in, size_out) = (din.size().unwrap(), dout.size().unwrap());
    let mut m = machine();
    fill(&mut m, 0, din, u64::from(f));
    let mut i = Instruction::new(Opcode(0x43), GEN);
    if let Body::S3d3Ts(s) = &mut i.body {
        let t = |off| Tensor::<3> {
            start_addr: Addr4::at(GEN, Space::Sbuf, 0, off).unwrap(),
            step_elem: [1; 3],
            num_elem: [f, 1, 1],
        };
        s.src_mem_pattern = t(0);
        s.dst_mem_pattern = t(0x10000);
        s.in_dtype = din;
        s.out_dtype = dout;
        s.num_active_channels = P as u8;
        s.op0 = AluOp::MULT;
        s.op1 = AluOp::ADD;
        s.imm0 = ImmVal(1.5f32.to_bits());
        s.imm1 = ImmVal(0.25f32.to_bits());
    }
    m.step(&i).unwrap();
    let secs = time(Duration::from_millis(300), || {
        m.step(black_box(&i)).unwrap();
    });
    Row {
        name: format!("TensorScalar {din}->{dout} MULT,ADD 128x{f}"),
        touched: size_in + size_out,
        elements: u64::from(f) * u64::from(P),
        secs,
        copy_secs: memcpy_time(usize::from(f) * (size_in + size_out)),
    }
}

fn bench_affine_select() -> Row {
    bench_affine_select_n(4096)
}

/// AffineSelect fp32 (causal mask) over 128 × `f`, one thread.
fn bench_affine_select_n(f: u16) -> Row {
    let mut m = machine();
    fill(&mut m, 0, Dtype::FP32, u64::from(f));
    m.set_register(0, 0xFF7F_FFFF).unwrap();
    let mut i = Instruction::new(Opcode(0x92), GEN);
    if let Body::S2d2TsAs(s) = &mut i.body {
        s.num_active_channels = P as u8;
        s.in_out_dtype = DtypePair::new(Dtype::FP32, Dtype::FP32);
        s.fill_mode = AffineSelectCmp::GREATER_THAN_EQ;
        s.fill_reg = 0;
        let mut d = Data4d::default();
        d.step_elem[0] = -1;
        d.num_elem[0] = f;
        s.mask_pattern = d;
        let t = |off| Tensor::<2> {
            start_addr: Addr4::at(GEN, Space::Sbuf, 0, off).unwrap(),
            step_elem: [1, 1],
            num_elem: [f, 1],
        };
        s.src_mem_pattern = t(0);
        s.dst_mem_pattern = t(0x10000);
        s.channel_multiplier = 1;
    }
    m.step(&i).unwrap();
    let secs = time(Duration::from_millis(300), || {
        m.step(black_box(&i)).unwrap();
    });
    Row {
        name: format!("AffineSelect fp32 128x{f}"),
        touched: 8,
        elements: u64::from(f) * u64::from(P),
        secs,
        copy_secs: memcpy_time(usize::from(f) * 8),
    }
}

fn bench_iota() -> Row {
    bench_iota_n(4096)
}

/// Iota fp32 over 128 × `f`, one thread.
fn bench_iota_n(f: u16) -> Row {
    let mut m = machine();
    let mut i = Instruction::new(Opcode(0x7E), GEN);
    if let Body::D4Iota(s) = &mut i.body {
        s.out_dtype = Dtype::FP32;
        s.num_active_channels = P as u8;
        s.channel_multiplier = 1;
        let mut d = Data4d::default();
        d.num_elem[0] = f;
        s.src_data_pattern = d;
        s.dst_mem_pattern = tensor4(0, [f, 1, 1, 1]);
    }
    m.step(&i).unwrap();
    let secs = time(Duration::from_millis(300), || {
        m.step(black_box(&i)).unwrap();
    });
    Row {
        name: format!("Iota fp32 128x{f}"),
        touched: 4,
        elements: u64::from(f) * u64::from(P),
        secs,
        copy_secs: memcpy_time(usize::from(f) * 4),
    }
}

fn bench_encode_fp8() -> Row {
    let n = 1 << 20;
    let xs: Vec<f32> = (0..n).map(|i| ((i % 1000) as f32 - 500.0) * 0.37).collect();
    let mut out = vec![0u8; n];
    let cfg = Fp8Config::default();
    let secs = time(Duration::from_millis(300), || {
        encode_slice_from_f32(Dtype::FP8_EXP4, black_box(&xs), &mut out, &cfg);
        black_box(&mut out);
    });
    let src = vec![1u8; n * 5];
    let mut dst = vec![0u8; n * 5];
    let copy_secs = time(Duration::from_millis(200), || {
        dst.copy_from_slice(black_box(&src));
        black_box(&mut dst);
    });
    Row {
        name: "numerics fp32->fp8 slice (1 Mi)".into(),
        touched: 5,
        elements: n as u64,
        secs,
        copy_secs,
    }
}

fn tiny_setup() -> (Machine, Instruction, Instruction) {
    let mut m = machine();
    fill(&mut m, 0, Dtype::FP32, 1);
    let mut i = Instruction::new(Opcode(0x43), GEN);
    if let Body::S3d3Ts(s) = &mut i.body {
        let t = |off| Tensor::<3> {
            start_addr: Addr4::at(GEN, Space::Sbuf, 0, off).unwrap(),
            step_elem: [1; 3],
            num_elem: [1; 3],
        };
        s.src_mem_pattern = t(0);
        s.dst_mem_pattern = t(0x100);
        s.in_dtype = Dtype::FP32;
        s.out_dtype = Dtype::FP32;
        s.num_active_channels = 1;
        s.op0 = AluOp::MULT;
        s.op1 = AluOp::ADD;
        s.imm0 = ImmVal(2f32.to_bits());
        s.imm1 = ImmVal(1f32.to_bits());
    }
    let mut p = ptr_multi(Dtype::FP32, Dtype::FP32, AluOp::MULT, 1, 1, 0x100);
    if let Body::S4d4Tsm(s) = &mut p.body {
        s.num_active_channels = 1;
    }
    (m, i, p)
}

fn bench_tiny() -> (Timing, Timing) {
    let (mut m, i, p) = tiny_setup();
    let ts = time(Duration::from_millis(300), || {
        m.step(black_box(&i)).unwrap();
    });
    let pm = time(Duration::from_millis(300), || {
        m.step(black_box(&p)).unwrap();
    });
    (ts, pm)
}

// Issue 17a kernels (plain reference loops today; the fast paths come later), 128 × 8192.

/// Times `i` (already valid on a machine `fill`ed by the caller) as one bench row.
fn row_of(m: &mut Machine, i: &Instruction, name: String, touched: usize, epp: u64) -> Row {
    m.step(i).unwrap();
    let secs = time(Duration::from_millis(300), || {
        m.step(black_box(i)).unwrap();
    });
    Row {
        name,
        touched,
        elements: epp * u64::from(P),
        secs,
        copy_secs: memcpy_time(epp as usize * touched),
    }
}

fn t3(off: u32, f: u16) -> Tensor<3> {
    Tensor::<3> {
        start_addr: Addr4::at(GEN, Space::Sbuf, 0, off).unwrap(),
        step_elem: [1; 3],
        num_elem: [f, 1, 1],
    }
}

/// TensorTensor MULT, two tiles in, one out.
fn bench_tensor_tensor(din: Dtype, dout: Dtype) -> Row {
    let (si, so) = (din.size().unwrap(), dout.size().unwrap());
    let f = 8192u16;
    let mut m = machine();
    fill(&mut m, 0, din, u64::from(f));
    fill(&mut m, 0x10000, din, u64::from(f));
    let mut i = Instruction::new(Opcode::TENSOR_TENSOR_ARITH, GEN);
    if let Body::S3s3d3Tt(s) = &mut i.body {
        s.in0_in1_dtype = DtypePair::new(din, din);
        s.out_dtype = dout;
        s.op = AluOp::MULT;
        s.num_active_channels = P as u8;
        s.src0_mem_pattern = t3(0, f);
        s.src1_mem_pattern = t3(0x10000, f);
        s.dst_mem_pattern = t3(0x20000, f);
    }
    let name = format!("TensorTensor {din}->{dout} MULT 128x{f}");
    row_of(&mut m, &i, name, 2 * si + so, u64::from(f))
}

/// Copy / Cast (0x46/0x47) and Reciprocal (0x48).
fn bench_s4d4_tr(op: Opcode, din: Dtype, dout: Dtype) -> Row {
    let (si, so) = (din.size().unwrap(), dout.size().unwrap());
    let f = 8192u16;
    let mut m = machine();
    fill(&mut m, 0, din, u64::from(f));
    let mut i = Instruction::new(op, GEN);
    if let Body::S4d4Tr(s) = &mut i.body {
        s.in_dtype = din;
        s.out_dtype = dout;
        s.num_active_channels = P as u8;
        s.src_mem_pattern = tensor4(0, [f, 1, 1, 1]);
        s.dst_mem_pattern = tensor4(0x10000, [f, 1, 1, 1]);
    }
    let what = op.row().map_or("?", |r| r.display);
    let name = format!("{what} {din}->{dout} 128x{f}");
    row_of(&mut m, &i, name, si + so, u64::from(f))
}

/// TensorReduce ADD over X (rows of 64), fp32 accumulate.
fn bench_tensor_reduce(din: Dtype) -> Row {
    let si = din.size().unwrap();
    let f = 8192u16;
    let mut m = machine();
    fill(&mut m, 0, din, u64::from(f));
    let mut i = Instruction::new(Opcode::TENSOR_REDUCE_ARITH, GEN);
    if let Body::S4d4Tr(s) = &mut i.body {
        s.in_dtype = din;
        s.out_dtype = Dtype::FP32;
        s.num_active_channels = P as u8;
        s.op = AluOp::ADD;
        s.op_dim = TensorSubdim::X;
        let mut src = tensor4(0, [64, f / 64, 1, 1]);
        src.step_elem[1] = 64;
        s.src_mem_pattern = src;
        s.dst_mem_pattern = tensor4(0x10000, [f / 64, 1, 1, 1]);
    }
    let name = format!("TensorReduce {din}->fp32 ADD x 128x{f}");
    row_of(&mut m, &i, name, si, u64::from(f))
}

/// Memset bf16.
fn bench_memset() -> Row {
    let f = 8192u16;
    let mut m = machine();
    let mut i = Instruction::new(Opcode::MEMSET, GEN);
    if let Body::D4Mr(s) = &mut i.body {
        s.dst_element_count = u32::from(f);
        s.dtype = Dtype::BFLOAT16;
        s.num_active_channels = P as u8;
        s.set_value = 0x3F80;
        s.dst_mem_pattern = tensor4(0, [f, 1, 1, 1]);
    }
    row_of(&mut m, &i, format!("Memset bf16 128x{f}"), 2, u64::from(f))
}

/// Matmul 0x02 of 128 × 128 weights by a 128 × `n` moving tile into PSUM (LoadWeights once,
/// then the Matmul timed), and the sum kernel `numerics::pe::matmul` alone on the same
/// shape: rows whose "elements" are multiply-adds.
fn bench_matmul(din: Dtype, n: u16) -> (Row, Row) {
    let (k, cols) = (128u32, 128u32);
    let mut m = machine();
    fill(&mut m, 0, din, u64::from(cols));
    fill(&mut m, 0x1000, din, u64::from(n));
    let mode = if din == Dtype::FP32 {
        " fp32_mode=low_high"
    } else {
        ""
    };
    let ctrl = format!("ctrl=[num_active_rows:{k},num_active_cols:{cols},row_grp:0xf,col_grp:0xf");
    let text = format!(
        "load_weights src=sbuf[p0]+0x0:[[1,{cols}]] in={din}{mode} {ctrl}]\n\
         matmul src=sbuf[p0]+0x1000:[[1,{n}]] in={din}{mode} {ctrl},psum_accumulate_flags:3] \
         dst=psum[p0]+0x0:[[1,{n}]]\n"
    );
    let prog = tpb_isa::text::asm(&text, &tpb_isa::text::AsmOptions::new(GEN)).unwrap();
    let insts: Vec<Instruction> = prog.instructions().map(|s| s.inst).collect();
    m.step(&insts[0]).unwrap();
    let macs = u64::from(k * cols) * u64::from(n);
    let row = |name: String, secs: Timing| Row {
        name,
        elements: macs,
        touched: 0,
        secs,
        copy_secs: secs,
    };
    let inst = time(Duration::from_millis(300), || {
        m.step(black_box(&insts[1])).unwrap();
    });
    let w: Vec<f32> = (0..k * cols)
        .map(|i| (i % 97) as f32 * 0.37 - 17.0)
        .collect();
    let x: Vec<f32> = (0..k * u32::from(n))
        .map(|i| (i % 89) as f32 * 0.21 - 9.0)
        .collect();
    let mut out = vec![0f32; cols as usize * usize::from(n)];
    let kernel = time(Duration::from_millis(300), || {
        tpb_sim::numerics::pe::matmul(black_box(&w), cols as usize, &x, n.into(), &mut out);
        black_box(&mut out);
    });
    (
        row(format!("Matmul {din} 128x128x{n}"), inst),
        row(format!("numerics::pe::matmul 128x128x{n}"), kernel),
    )
}

fn main() {
    // `cargo bench -p tpb-sim -- WORD` runs the cases whose name contains WORD.
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let wanted = |name: &str| filter.is_empty() || filter.iter().any(|f| name.contains(f.as_str()));
    println!(
        "tpb-sim benchmark ({GEN}; x memcpy = time / time of copying the bytes touched, one thread)"
    );
    println!("(times are on-CPU time, all threads, so that other processes' load does not count;");
    println!(" 'wall G/s' is the wall-clock rate)");
    println!(
        "{:<46} {:>9} {:>9} {:>10} {:>10} {:>8} {:>9}",
        "case", "elements", "G elem/s", "touch GB/s", "copy GB/s", "x memcpy", "wall G/s"
    );
    let (bf, f32_, f16, e4) = (Dtype::BFLOAT16, Dtype::FP32, Dtype::FP16, Dtype::FP8_EXP4);
    let mut cases: Vec<(String, Box<dyn Fn() -> Row>)> = Vec::new();
    for (din, dout) in [
        (bf, bf),
        (f32_, f32_),
        (f16, f16),
        (e4, e4),
        (f32_, bf),
        (bf, f32_),
        (f32_, e4),
        (e4, bf),
    ] {
        cases.push((
            format!("PtrMulti {din}->{dout} MULT"),
            Box::new(move || bench_ptr_multi(din, dout, AluOp::MULT, 1)),
        ));
    }
    cases.push((
        "PtrMulti fp32->fp8 BYPASS".into(),
        Box::new(move || bench_ptr_multi(f32_, e4, AluOp::BYPASS, 1)),
    ));
    for (din, dout) in [(bf, bf), (f32_, f32_), (f16, f16), (e4, e4)] {
        cases.push((
            format!("TensorScalar {din}->{dout}"),
            Box::new(move || bench_tensor_scalar(din, dout)),
        ));
    }
    cases.push(("AffineSelect fp32".into(), Box::new(bench_affine_select)));
    // Issue 17a.
    for (din, dout) in [(bf, bf), (f32_, f32_), (f32_, bf)] {
        cases.push((
            format!("TensorTensor {din}->{dout}"),
            Box::new(move || bench_tensor_tensor(din, dout)),
        ));
    }
    for (op, din, dout) in [
        (Opcode::COPY, bf, bf),
        (Opcode::CAST, f32_, bf),
        (Opcode::CAST, bf, f32_),
        (Opcode::RECIPROCAL, f32_, f32_),
    ] {
        cases.push((
            format!("S4D4_TR {op} {din}->{dout}"),
            Box::new(move || bench_s4d4_tr(op, din, dout)),
        ));
    }
    cases.push((
        "TensorReduce bf16".into(),
        Box::new(|| bench_tensor_reduce(Dtype::BFLOAT16)),
    ));
    cases.push(("Memset bf16".into(), Box::new(bench_memset)));
    cases.push(("Iota fp32".into(), Box::new(bench_iota)));
    cases.push((
        "numerics fp32->fp8 slice".into(),
        Box::new(bench_encode_fp8),
    ));
    let print = |r: &Row| {
        let bytes = r.elements as f64 * r.touched as f64;
        println!(
            "{:<46} {:>9} {:>9.3} {:>10.2} {:>10.2} {:>8.2} {:>9.3}",
            r.name,
            r.elements,
            r.elements as f64 / r.secs.cpu / 1e9,
            bytes / r.secs.cpu / 1e9,
            bytes / r.copy_secs.cpu / 1e9,
            r.secs.cpu / r.copy_secs.cpu,
            r.elements as f64 / r.secs.wall / 1e9,
        );
    };
    for (name, f) in &cases {
        if wanted(name) {
            print(&f());
        }
    }
    for din in [f32_, bf] {
        let name = format!("Matmul {din}");
        if wanted(&name) {
            let (inst, kernel) = bench_matmul(din, 512);
            let rate = |r: &Row| r.elements as f64 / r.secs.cpu / 1e9;
            println!(
                "{name} 128x128x512: {:.2} G MAC/s; the sum kernel alone {:.2} G MAC/s ({:.0} % \
                 of the instruction's time)",
                rate(&inst),
                rate(&kernel),
                100.0 * kernel.secs.cpu / inst.secs.cpu
            );
        }
    }
    if wanted("threads") {
        // 1 → 2 (→ all cores) threads on the same instruction, in the same run.
        // The wall clock is what threads buy; it only means something on an idle machine,
        // so the load average is printed with it. "CPU time 2t / 1t" near 1 says splitting
        // costs nothing and the threads do not slow each other (no bandwidth limit); the
        // two-thread copy of the same bytes is the bound for a memory-bound kernel.
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        for (din, dout) in [(bf, bf), (f32_, f32_), (f32_, e4)] {
            let one = bench_ptr_multi(din, dout, AluOp::MULT, 1);
            let two = bench_ptr_multi(din, dout, AluOp::MULT, 2);
            let bytes = one.touched * (one.elements / u64::from(P)) as usize;
            let copy2 = memcpy_time_2t(bytes);
            print(&one);
            print(&two);
            println!(
                "  1 -> 2 threads: wall-clock speed-up {:.2}x (goal >= 1.7); CPU time 2t / 1t \
                 {:.2}; memcpy of the same bytes 1 -> 2 threads {:.2}x ({cores} cores, load \
                 average {})",
                one.secs.wall / two.secs.wall,
                two.secs.cpu / one.secs.cpu,
                one.copy_secs.wall / copy2.wall,
                load_average()
            );
        }
    }
    if filter.iter().any(|f| f == "levels") {
        simd_levels();
        return;
    }
    if filter.iter().any(|f| f == "fixed") {
        // A fixed amount of work for `perf stat` (cycles per instruction independent of load).
        let (mut m, i, _) = tiny_setup();
        for _ in 0..2_000_000 {
            m.step(black_box(&i)).unwrap();
        }
        return;
    }
    if wanted("tiny") {
        let (ts, pm) = bench_tiny();
        println!(
            "tiny TensorScalar (1 element):   {:>8.1} ns / instruction",
            ts.cpu * 1e9
        );
        println!(
            "tiny PtrMulti (1 element):       {:>8.1} ns / instruction",
            pm.cpu * 1e9
        );
    }
}

/// `-- levels`: each case at every SIMD level this CPU has (`tpb_sim::numerics::simd`), in
/// one run, as on-CPU G elements/s and the speed-up over the baseline level. To add a case,
/// add a line to `cases`.
fn simd_levels() {
    use tpb_sim::numerics::simd;
    let (bf, f32_, f16, e4) = (Dtype::BFLOAT16, Dtype::FP32, Dtype::FP16, Dtype::FP8_EXP4);
    type Case = (String, Box<dyn Fn() -> Row>);
    let mut cases: Vec<Case> = Vec::new();
    for f in [512u16, 16384] {
        for (din, dout) in [(f32_, f32_), (bf, bf), (f16, f16), (e4, e4), (f32_, bf)] {
            cases.push((
                format!("TensorScalar {din}->{dout} 128x{f}"),
                Box::new(move || bench_tensor_scalar_n(din, dout, f)),
            ));
        }
        for (din, dout) in [(f32_, f32_), (bf, bf), (f16, f16), (e4, e4), (f32_, e4)] {
            cases.push((
                format!("PtrMulti {din}->{dout} 128x{f}"),
                Box::new(move || bench_ptr_multi_n(din, dout, AluOp::MULT, usize::from(f), 1)),
            ));
        }
        cases.push((
            format!("AffineSelect fp32 128x{f}"),
            Box::new(move || bench_affine_select_n(f)),
        ));
        cases.push((
            format!("Iota fp32 128x{f}"),
            Box::new(move || bench_iota_n(f)),
        ));
    }
    for din in [f32_, bf] {
        cases.push((
            format!("Matmul {din} 128x128x512 (G MAC/s)"),
            Box::new(move || bench_matmul(din, 512).0),
        ));
    }
    cases.push((
        "numerics::pe::matmul 128x128x512".into(),
        Box::new(move || bench_matmul(f32_, 512).1),
    ));
    let levels = simd::available();
    print!("{:<40}", "case (on-CPU G elem/s, one thread)");
    for l in &levels {
        print!(" {:>9}", l.name());
    }
    println!("   speed-up over baseline");
    for (name, case) in &cases {
        print!("{name:<40}");
        let mut rates = Vec::new();
        for &l in &levels {
            let r = simd::with_level(l, case).expect("an available level");
            let rate = r.elements as f64 / r.secs.cpu / 1e9;
            rates.push(rate);
            print!(" {rate:>9.3}");
        }
        let ups: Vec<String> = rates[1..]
            .iter()
            .map(|r| format!("{:.2}x", r / rates[0]))
            .collect();
        println!("   {}", ups.join(" "));
    }
}
