//! DMAMEMCPY 0xB8's fast paths (contiguous runs merged and copied directly between spaces,
//! casts and compute_ops through the numerics' slice conversions) against a plain byte walk
//! written from the sheet, bit for bit, at every SIMD level: random 2-D descriptors over
//! HBM, SBUF and PSUM (negative and zero steps, steps across partitions, elements of any
//! byte count, partial dtype elements in plain copies), every cast between the dtypes of at
//! most 4 bytes, every compute_op, memory of random bits with NaN payloads, infinities,
//! signed zeros and subnormals, and holes never written (the uninitialised-read warning and
//! the initialised shadow are compared too). A descriptor that leaves its space must fault
//! and change nothing; HBM held in blocks or as a placed tensor. Reference: isa-facts-pe-act-dma §3.4 (the walk: element k at
//! `addr + (k % n0)·s0 + (k / n0)·s1`, `elem_size` bytes; the source's byte stream fills the
//! destination's), §3.5 (cast and compute through fp32, B op= A).

mod support;
use support::Rng;

use tpb_isa::geometry::{Geometry, Space};
use tpb_isa::wire::{Addr8, DmaDirect2d, DmaLoc, DmaPattern};
use tpb_isa::{Body, DgeComputeOp, Dtype, Gen, Instruction, Opcode};
use tpb_sim::numerics::{from_f32, simd, to_f32};
use tpb_sim::{Config, FaultCause, HostTensor, Machine, SEGMENT_MIN};

const GEN: Gen = Gen::Cayman;
/// The bytes the cases use: HBM `0..HBM_SPAN`; partitions `0..PARTS`, bytes `0..SPAN` of
/// SBUF and PSUM.
const HBM_SPAN: u64 = 2048;
const PARTS: u32 = 4;
const SPAN: u64 = 512;

const DTYPES: [Dtype; 12] = [
    Dtype::FP32,
    Dtype::BFLOAT16,
    Dtype::FP16,
    Dtype::FP8_EXP3,
    Dtype::FP8_EXP4,
    Dtype::FP8_EXP5,
    Dtype::UINT8,
    Dtype::INT8,
    Dtype::UINT16,
    Dtype::INT16,
    Dtype::UINT32,
    Dtype::INT32,
];
const OPS: [DgeComputeOp; 5] = [
    DgeComputeOp::NONE,
    DgeComputeOp::ADD,
    DgeComputeOp::MULTIPLY,
    DgeComputeOp::MAX,
    DgeComputeOp::MIN,
];
/// fp32 words planted in memory (also read as bf16/fp16 halves and fp8 bytes).
const SPECIALS: [u32; 10] = [
    0x7FC0_0001, // quiet NaN with a payload
    0xFF80_0001, // signalling NaN, negative
    0x7F80_0000,
    0xFF80_0000,
    0x8000_0000,
    0x0000_0001, // smallest subnormal
    0x807F_FFFF,
    0x7F7F_FFFF,
    0x7E00_7C01, // fp16 halves: NaN payload, +inf
    0xFC00_8001,
];

/// Random bits with specials, in 64-byte blocks of which about one in eight is never written.
fn fill(m: &mut Machine, rng: &mut Rng) {
    let block = |rng: &mut Rng| -> Option<Vec<u8>> {
        if rng.below(8) == 0 {
            return None;
        }
        let mut b = Vec::with_capacity(64);
        for _ in 0..16 {
            let w = if rng.below(4) == 0 {
                rng.pick(&SPECIALS)
            } else {
                rng.next() as u32
            };
            b.extend_from_slice(&w.to_le_bytes());
        }
        Some(b)
    };
    for at in (0..HBM_SPAN).step_by(64) {
        if let Some(b) = block(rng) {
            m.write_hbm(at, &b).unwrap();
        }
    }
    for space in [Space::Sbuf, Space::Psum] {
        for p in 0..PARTS {
            for at in (0..SPAN).step_by(64) {
                if let Some(b) = block(rng) {
                    let t = HostTensor::at(space, p..p + 1)
                        .offset(at)
                        .elements(Dtype::UINT8, 64);
                    m.write_tensor(&t, &b).unwrap();
                }
            }
        }
    }
}

/// A random pattern of `count` elements of `elem` bytes (a multiple of `align`) somewhere in
/// the cases' bytes; now and then one that runs past them (or past the space).
fn pattern(rng: &mut Rng, elem: u64, counts: [u16; 2], align: u64) -> DmaPattern<2> {
    let geo = Geometry::of(GEN);
    let step = |rng: &mut Rng, unit: i64| (rng.below(9) as i64 - 3) * unit;
    match rng.below(3) {
        0 => {
            let addr = rng.below(HBM_SPAN / 2 / align) * align;
            DmaPattern {
                addr: Addr8::hbm(addr).unwrap(),
                step_elem: [
                    (step(rng, align as i64).max(0) + elem as i64 * (rng.below(2) as i64)) as i32,
                    step(rng, 4 * align as i64).max(0) as i32,
                ],
                num_elem: counts,
            }
        }
        k => {
            let space = if k == 1 { Space::Sbuf } else { Space::Psum };
            let stride = i64::from(geo.stride(space));
            let p = rng.below(u64::from(PARTS)) as u32;
            let off = (rng.below(SPAN / 4 / align) * align) as u32;
            // The outer step moves across partitions (forwards or back) or along one.
            let outer = match rng.below(3) {
                0 => stride,
                1 => -stride + 2 * align as i64,
                _ => step(rng, 8 * align as i64),
            };
            DmaPattern {
                addr: Addr8::on_chip(GEN, space, p, off).unwrap(),
                step_elem: [(step(rng, align as i64) + elem as i64) as i32, outer as i32],
                num_elem: counts,
            }
        }
    }
}

/// Two counts with a product of `n` (a random divisor split).
fn split(rng: &mut Rng, n: u64) -> Option<[u16; 2]> {
    let divisors: Vec<u64> = (1..=n.min(64)).filter(|d| n.is_multiple_of(*d)).collect();
    let a = rng.pick(&divisors);
    let b = n / a;
    (a <= u64::from(u16::MAX) && b <= u64::from(u16::MAX)).then_some([a as u16, b as u16])
}

/// A random DMAMEMCPY whose two sides move the same number of bytes (after the cast).
fn descriptor(rng: &mut Rng) -> Option<Instruction> {
    let cast = rng.below(3) != 0;
    let (din, dout, op) = if cast {
        (rng.pick(&DTYPES), rng.pick(&DTYPES), rng.pick(&OPS))
    } else {
        (Dtype::UINT8, Dtype::UINT8, DgeComputeOp::NONE)
    };
    let (i, o) = (din.size()? as u64, dout.size()? as u64);
    let cce = din != dout || op != DgeComputeOp::NONE;
    // Plain copies: any element size (partial fp32 elements of a byte stream too).
    let (ia, oa) = if cce { (i, o) } else { (1, 1) };
    let src_elem = ia * (1 + rng.below(12));
    let src_counts = [1 + rng.below(6) as u16, 1 + rng.below(4) as u16];
    let src_bytes = src_elem * u64::from(src_counts[0]) * u64::from(src_counts[1]);
    let values = src_bytes / ia;
    let dst_bytes = values * oa;
    let per: Vec<u64> = (1..=16)
        .filter(|k| (dst_bytes / oa).is_multiple_of(*k))
        .collect();
    let dst_elem = oa * rng.pick(&per);
    let dst_counts = split(rng, dst_bytes / dst_elem)?;
    let mut inst = Instruction::new(Opcode::DMA_MEMCPY, GEN);
    inst.body = Body::DmaDirect2d(DmaDirect2d {
        compute_op: op,
        src: pattern(rng, src_elem, src_counts, ia),
        src_elem_size: src_elem as u16,
        dst: pattern(rng, dst_elem, dst_counts, oa),
        dst_elem_size: dst_elem as u16,
        in_dtype: din,
        out_dtype: dout,
        ..DmaDirect2d::default()
    });
    Some(inst)
}

/// A byte's place, or `None` outside the cases' bytes (the reference does not model the
/// rest: such a descriptor must fault or is skipped).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Byte {
    Hbm(u64),
    On(Space, u32, u64),
}

/// The plain walk (§3.4): every byte of every element, in order.
fn bytes_of(p: &DmaPattern<2>, elem: u16) -> Option<Vec<Byte>> {
    let mut out = Vec::new();
    for j in 0..i64::from(p.num_elem[1]) {
        for i in 0..i64::from(p.num_elem[0]) {
            let d = i * i64::from(p.step_elem[0]) + j * i64::from(p.step_elem[1]);
            let a = p.addr.offset_by(d)?;
            for b in 0..u64::from(elem) {
                out.push(match a.locate(GEN)? {
                    DmaLoc::Hbm(x) if x + b < HBM_SPAN => Byte::Hbm(x + b),
                    DmaLoc::OnChip(s, q, off) if q < PARTS && u64::from(off) + b < SPAN => {
                        Byte::On(s, q, u64::from(off) + b)
                    }
                    _ => return None,
                });
            }
        }
    }
    Some(out)
}

/// The byte and whether it was ever written.
fn read(m: &Machine, b: Byte) -> (u8, bool) {
    let t = match b {
        Byte::Hbm(x) => HostTensor::hbm(x),
        Byte::On(s, p, o) => HostTensor::at(s, p..p + 1).offset(o),
    }
    .elements(Dtype::UINT8, 1);
    (
        m.read_tensor(&t).unwrap()[0],
        m.uninitialised_bytes(&t).unwrap() == 0,
    )
}

fn max_num(a: f32, b: f32) -> f32 {
    if a.is_nan() || b > a || (b == a && a.is_sign_negative()) {
        b
    } else {
        a
    }
}

fn min_num(a: f32, b: f32) -> f32 {
    if a.is_nan() || b < a || (b == a && b.is_sign_negative()) {
        b
    } else {
        a
    }
}

/// The plain DMAMEMCPY on `m`: the destination's bytes, their expected values and the
/// expected uninitialised-read warnings, or `None` when a byte lies outside the cases' bytes.
fn reference(m: &Machine, s: &DmaDirect2d) -> Option<(Vec<Byte>, Vec<u8>, Vec<String>)> {
    let src = bytes_of(&s.src, s.src_elem_size)?;
    let dst = bytes_of(&s.dst, s.dst_elem_size)?;
    let mut warnings = Vec::new();
    let mut stream = Vec::new();
    let mut unset = 0;
    for &b in &src {
        let (v, init) = read(m, b);
        stream.push(v);
        unset += u64::from(!init);
    }
    let say = |what: &str, n: u64| {
        format!(
            "{what} reads {n} uninitialised byte{}",
            if n == 1 { "" } else { "s" }
        )
    };
    if unset > 0 {
        warnings.push(say("src", unset));
    }
    let cce = s.compute_op != DgeComputeOp::NONE || s.in_dtype != s.out_dtype;
    let out = if cce {
        let fp8 = m.config().fp8;
        let (i, o) = (s.in_dtype.size()?, s.out_dtype.size()?);
        let old: Vec<(u8, bool)> = dst.iter().map(|&b| read(m, b)).collect();
        if s.compute_op != DgeComputeOp::NONE {
            let n = old.iter().filter(|x| !x.1).count() as u64;
            if n > 0 {
                warnings.push(say("dst (read by compute_op)", n));
            }
        }
        let word = |bytes: &mut dyn Iterator<Item = u8>| {
            let mut w = [0u8; 4];
            for (k, b) in bytes.enumerate() {
                w[k] = b;
            }
            u32::from_le_bytes(w)
        };
        let mut out = Vec::new();
        for k in 0..stream.len() / i {
            let a = to_f32(
                s.in_dtype,
                word(&mut stream[k * i..(k + 1) * i].iter().copied()),
                &fp8,
            );
            let b = || {
                to_f32(
                    s.out_dtype,
                    word(&mut old[k * o..(k + 1) * o].iter().map(|x| x.0)),
                    &fp8,
                )
            };
            let v = match s.compute_op {
                DgeComputeOp::ADD => b() + a,
                DgeComputeOp::MULTIPLY => b() * a,
                DgeComputeOp::MAX => max_num(a, b()),
                DgeComputeOp::MIN => min_num(a, b()),
                _ => a,
            };
            out.extend_from_slice(&from_f32(s.out_dtype, v, &fp8).to_le_bytes()[..o]);
        }
        out
    } else {
        stream
    };
    assert_eq!(
        out.len(),
        dst.len(),
        "the generator keeps byte counts equal"
    );
    Some((dst, out, warnings))
}

/// The cases' bytes: HBM, then each partition of SBUF and PSUM.
fn rows() -> Vec<HostTensor> {
    let mut rows = vec![HostTensor::hbm(0).elements(Dtype::UINT8, HBM_SPAN)];
    for space in [Space::Sbuf, Space::Psum] {
        for p in 0..PARTS {
            rows.push(HostTensor::at(space, p..p + 1).elements(Dtype::UINT8, SPAN));
        }
    }
    rows
}

/// Where a byte is in [`Snapshot::data`], and its row.
fn index(b: Byte) -> (usize, usize) {
    match b {
        Byte::Hbm(x) => (x as usize, 0),
        Byte::On(s, p, o) => {
            let row = 1 + usize::from(s == Space::Psum) * PARTS as usize + p as usize;
            (
                HBM_SPAN as usize + (row - 1) * SPAN as usize + o as usize,
                row,
            )
        }
    }
}

/// The cases' bytes, the uninitialised count of each row, and the shadow bit of each byte
/// of `watch` (the destination's).
#[derive(Debug, PartialEq)]
struct Snapshot {
    data: Vec<u8>,
    unset: Vec<u64>,
    watched: Vec<bool>,
}

fn snapshot(m: &Machine, watch: &[Byte]) -> Snapshot {
    let rows = rows();
    Snapshot {
        data: rows
            .iter()
            .flat_map(|t| m.read_tensor(t).unwrap())
            .collect(),
        unset: rows
            .iter()
            .map(|t| m.uninitialised_bytes(t).unwrap())
            .collect(),
        watched: watch.iter().map(|&b| read(m, b).1).collect(),
    }
}

/// `before` with `values` written to `dst` (in order: a byte written twice keeps the last).
fn apply(mut before: Snapshot, dst: &[Byte], values: &[u8]) -> Snapshot {
    for (k, (&b, &v)) in dst.iter().zip(values).enumerate() {
        let (at, row) = index(b);
        before.data[at] = v;
        if !before.watched[k] {
            // Every watched copy of this byte becomes initialised, counted once.
            before.unset[row] -= 1;
            for (w, &c) in before.watched.iter_mut().zip(dst) {
                if c == b {
                    *w = true;
                }
            }
        }
    }
    before
}

#[test]
fn dma_memcpy_fast_paths_match_the_plain_walk() {
    let mut rng = Rng(0x2121_d3a0_5eed_0001);
    let levels = simd::available();
    let (mut ran, mut faulted) = (0, 0);
    for case in 0..240 {
        let Some(inst) = descriptor(&mut rng) else {
            continue;
        };
        let Body::DmaDirect2d(s) = &inst.body else {
            unreachable!()
        };
        let mut m = Machine::new(Config::new(GEN));
        // Every other case holds the HBM bytes as one placed tensor (a segment) rather than
        // blocks: the same bytes either way.
        if case % 2 == 1 {
            let whole = HostTensor::hbm(0).elements(Dtype::UINT8, SEGMENT_MIN);
            assert!(m.place_tensor(&whole).unwrap());
        }
        fill(&mut m, &mut rng);
        let level = levels[case % levels.len()];
        let want = reference(&m, s);
        let watch = bytes_of(&s.dst, s.dst_elem_size).unwrap_or_default();
        let before = snapshot(&m, &watch);
        let got = simd::with_level(level, || m.step(&inst)).unwrap();
        match (got, want) {
            (Ok(report), Some((dst, values, warnings))) => {
                ran += 1;
                let want = apply(before, &dst, &values);
                assert!(snapshot(&m, &dst) == want, "case {case} ({level:?}): {s:?}");
                let got: Vec<&str> = report.warnings.iter().map(|w| w.message.as_str()).collect();
                assert_eq!(got, warnings, "case {case}: {s:?}");
            }
            (Err(f), want) => {
                // An invalid descriptor (CCE alignment, step fields) or one that leaves its
                // space: nothing changed (fault_atomicity.rs checks the whole state).
                assert!(
                    snapshot(&m, &watch) == before,
                    "case {case}: a fault wrote: {f}"
                );
                assert_eq!(m.retired(), 0);
                match f.cause {
                    FaultCause::Invalid { .. } => {}
                    _ => {
                        faulted += 1;
                        assert!(want.is_none(), "case {case}: faulted in range: {f}; {s:?}");
                    }
                }
            }
            // Past the cases' bytes but inside the space: not compared.
            (Ok(_), None) => {}
        }
    }
    assert!(ran >= 60, "only {ran} descriptors ran");
    assert!(faulted >= 3, "only {faulted} descriptors faulted");
}
