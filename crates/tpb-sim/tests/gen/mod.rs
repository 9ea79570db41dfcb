//! Random instruction generation for the property tests: a machine and the naive
//! reference (`tests/reference`) set up in the same random state, and one generator per
//! instruction that produces valid instructions with random shapes, dtypes, strides
//! (negative and zero), aliasing, register-form addresses, pointer immediates, SBUF/PSUM,
//! events, and a few deliberate faults.
#![allow(dead_code, clippy::needless_range_loop)]

use crate::reference::{RefState, WINDOW};

mod dve_state;
pub use dve_state::*;
use tpb_isa::geometry::Space;
use tpb_isa::opcode::{sem, FamilySem, OpcodeInfo};
use tpb_isa::validate::is_valid;
use tpb_isa::wire::{Addr4, Data4d, DtypePair, F32Bits, ImmVal, Tensor};
use tpb_isa::*;
use tpb_sim::numerics::{E4m3Variant, Fp8Config};
use tpb_sim::{Config, FlopKind, Flops, HostTensor, Machine};

// ---- a tiny deterministic RNG -------------------------------------------------------------

pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        // splitmix64
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next() % n
        }
    }
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as u64) as i64
    }
    pub fn chance(&mut self, p: f64) -> bool {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64 > 1.0 - p
    }
    pub fn pick<T: Copy>(&mut self, v: &[T]) -> T {
        v[self.below(v.len() as u64) as usize]
    }
    pub fn f32_bits(&mut self) -> u32 {
        match self.below(6) {
            0 => self.pick(&[
                0u32,
                0x8000_0000,
                0x7F80_0000,
                0xFF80_0000,
                0x7FC0_0000,
                0xFF7F_FFFF,
                0x7F7F_FFFF,
                1,
                0x3F80_0000,
                0xBF80_0000,
            ]),
            1 | 2 => (self.range(-64, 64) as f32 / 4.0).to_bits(),
            _ => self.next() as u32,
        }
    }
}

// ---- the world: a machine and a reference in the same state ------------------------------

pub struct World {
    pub gen: Gen,
    pub m: Machine,
    pub r: RefState,
    pub rng: Rng,
    pub strict: bool,
    pub regs_used: Vec<u8>,
}

const PLAIN: [Dtype; 12] = [
    Dtype::INT8,
    Dtype::UINT8,
    Dtype::INT16,
    Dtype::UINT16,
    Dtype::BFLOAT16,
    Dtype::FP16,
    Dtype::INT32,
    Dtype::UINT32,
    Dtype::FP32,
    Dtype::FP8_EXP3,
    Dtype::FP8_EXP4,
    Dtype::FP8_EXP5,
];
const INTS: [Dtype; 6] = [
    Dtype::INT8,
    Dtype::UINT8,
    Dtype::INT16,
    Dtype::UINT16,
    Dtype::INT32,
    Dtype::UINT32,
];
const FPS: [Dtype; 6] = [
    Dtype::BFLOAT16,
    Dtype::FP16,
    Dtype::FP32,
    Dtype::FP8_EXP3,
    Dtype::FP8_EXP4,
    Dtype::FP8_EXP5,
];

fn active(gen: Gen, space: Space) -> u32 {
    tpb_isa::geometry::Geometry::of(gen).active_bytes(space)
}

/// A placed operand: space, start partition, origin offset and its descriptor geometry.
#[derive(Clone, Copy, Debug)]
struct Place<const N: usize> {
    space: Space,
    p0: u32,
    off: u32,
    steps: [i16; N],
    nums: [u16; N],
    size: u32,
}

impl World {
    /// A random opcode row of behaviour type `S` defined on this world's generation, drawn
    /// with `weight(variant)` (0: never), and its variant. Generators choose what to build
    /// from the table's rows and match the variant, never an opcode byte, so an alias row
    /// (a new byte on an existing behaviour) is generated, and checked, like its twin.
    pub fn row<S: FamilySem>(&mut self, weight: impl Fn(S) -> u64) -> (&'static OpcodeInfo, S) {
        let gen = self.gen;
        let rows: Vec<(&'static OpcodeInfo, S)> = S::rows()
            .filter(|&(r, v)| r.gens.contains(gen) && weight(v) > 0)
            .collect();
        let total: u64 = rows.iter().map(|&(_, v)| weight(v)).sum();
        let mut k = self.rng.below(total);
        for &(r, v) in &rows {
            if k < weight(v) {
                return (r, v);
            }
            k -= weight(v);
        }
        panic!("no {:?} row on {gen}", S::FAMILY)
    }

    /// An instruction of `row` with a default body, on this world's generation.
    pub fn instruction(&self, row: &OpcodeInfo) -> Instruction {
        Instruction::new(Opcode(row.value), self.gen)
    }

    pub fn new(seed: u64, gen: Gen) -> World {
        World::with(seed, gen, None)
    }

    /// As `new`, with `max_elements` overridden when given.
    pub fn with(seed: u64, gen: Gen, max_elements: Option<u64>) -> World {
        let mut rng = Rng(seed);
        let fp8 = Fp8Config {
            ocp_sat: rng.chance(0.2),
            e4m3: if rng.chance(0.2) {
                E4m3Variant::FiniteOnly
            } else {
                E4m3Variant::Ieee
            },
        };
        let strict = rng.chance(0.15);
        let mut cfg = Config {
            fp8,
            strict,
            ..Config::new(gen)
        };
        if let Some(l) = max_elements {
            cfg.max_elements = l;
        }
        World::around(rng, Machine::new(cfg))
    }

    /// A world around a new (or reset) machine `m`, its configuration as it is, drawing from
    /// `rng`: two worlds made alike generate the same programs.
    pub fn around(rng: Rng, m: Machine) -> World {
        let cfg = *m.config();
        let mut w = World {
            gen: cfg.gen,
            m,
            r: RefState::new(cfg.gen, cfg.fp8),
            rng,
            strict: cfg.strict,
            regs_used: Vec::new(),
        };
        w.fill_memory();
        w
    }

    /// Random bytes in every partition's window; some partitions partly uninitialised.
    fn fill_memory(&mut self) {
        let spaces: &[Space] = if self.gen == Gen::Maverick {
            &[Space::Sbuf]
        } else {
            &[Space::Sbuf, Space::Psum]
        };
        for &space in spaces {
            let si = if space == Space::Sbuf { 0 } else { 1 };
            for p in 0..128u32 {
                let (lo, hi) = if self.rng.chance(0.1) {
                    let a = self.rng.below(WINDOW as u64) as usize;
                    let b = self.rng.below(WINDOW as u64) as usize;
                    (a.min(b), a.max(b))
                } else {
                    (0, WINDOW)
                };
                if lo == hi {
                    continue;
                }
                let bytes: Vec<u8> = (lo..hi).map(|_| self.rng.next() as u8).collect();
                let t = HostTensor::at(space, p..p + 1)
                    .offset(lo as u64)
                    .elements(Dtype::UINT8, (hi - lo) as u64);
                self.m.write_tensor(&t, &bytes).unwrap();
                let base = p as usize * WINDOW;
                self.r.mem[si][base + lo..base + hi].copy_from_slice(&bytes);
                self.r.init[si][base + lo..base + hi].fill(true);
            }
        }
    }

    pub fn set_reg(&mut self, v: u32) -> u8 {
        let mut r = self.rng.below(64) as u8;
        while self.regs_used.contains(&r) {
            r = (r + 1) % 64;
        }
        self.regs_used.push(r);
        self.m.set_register(r as usize, v).unwrap();
        self.r.regs[r as usize] = v;
        r
    }

    pub fn set_flops(&mut self, c: usize, f: Flops) {
        self.m.set_flops(c, f).unwrap();
        self.r.flops[c] = f.slots;
        self.r.loaded[c] = f.loaded;
        self.r.kind[c] = match f.kind {
            None => 0,
            Some(FlopKind::Arith) => 1,
            Some(FlopKind::Bitvec) => 2,
        };
    }

    fn channels(&mut self) -> u8 {
        if self.rng.chance(0.8) {
            self.rng.range(1, 4) as u8
        } else {
            self.rng.range(1, 24) as u8
        }
    }

    fn dtype(&mut self, set: &[Dtype]) -> Dtype {
        self.rng.pick(set)
    }

    fn out_dtype(&mut self, set: &[Dtype]) -> Dtype {
        if self.rng.chance(0.1) {
            Dtype::FP32R
        } else {
            self.rng.pick(set)
        }
    }

    /// A random factorisation of `count` into `n` counts.
    fn factor(&mut self, count: u64, n: usize) -> Vec<u16> {
        let mut rest = count;
        let mut v = Vec::new();
        for _ in 0..n - 1 {
            let divs: Vec<u64> = (1..=rest).filter(|d| rest.is_multiple_of(*d)).collect();
            let d = self.rng.pick(&divs);
            v.push(d as u16);
            rest /= d;
        }
        v.push(rest as u16);
        // shuffle
        for i in (1..v.len()).rev() {
            let j = self.rng.below(i as u64 + 1) as usize;
            v.swap(i, j);
        }
        v
    }

    /// Steps for counts: contiguous, reversed, random (incl. 0) or broadcast-heavy.
    fn steps<const N: usize>(&mut self, nums: &[u16; N]) -> [i16; N] {
        let mut s = [1i16; N];
        match self.rng.below(4) {
            0 | 1 => {
                let mut acc = 1i32;
                let neg = self.rng.chance(0.3);
                for i in 0..N {
                    s[i] = if neg { -acc } else { acc } as i16;
                    acc *= i32::from(nums[i]);
                }
            }
            2 => {
                for x in s.iter_mut() {
                    *x = self.rng.range(-3, 3) as i16;
                }
            }
            _ => {
                for x in s.iter_mut() {
                    *x = if self.rng.chance(0.5) {
                        0
                    } else {
                        self.rng.range(-2, 5) as i16
                    };
                }
            }
        }
        s
    }

    /// Places a pattern in the window of a space (aligned), if it fits.
    fn place<const N: usize>(
        &mut self,
        nums: [u16; N],
        size: u32,
        n: u8,
        psum_ok: bool,
    ) -> Place<N> {
        for _ in 0..20 {
            let steps = self.steps(&nums);
            let (mut lo, mut hi) = (0i64, 0i64);
            for i in 0..N {
                let span = i64::from(steps[i]) * (i64::from(nums[i]) - 1);
                lo += span.min(0);
                hi += span.max(0);
            }
            let min_o = -lo * i64::from(size);
            let max_o = WINDOW as i64 - (hi + 1) * i64::from(size);
            if max_o < min_o {
                continue;
            }
            let mut o = self.rng.range(min_o, max_o);
            o -= o % i64::from(size);
            if o < min_o {
                o += i64::from(size);
            }
            let space = if psum_ok && self.gen != Gen::Maverick && self.rng.chance(0.25) {
                Space::Psum
            } else {
                Space::Sbuf
            };
            let p0 = self.rng.below(128 - u64::from(n) + 1) as u32;
            return Place {
                space,
                p0,
                off: o as u32,
                steps,
                nums,
                size,
            };
        }
        // Fallback: contiguous from 0.
        let mut steps = [1i16; N];
        let mut acc = 1i32;
        for i in 0..N {
            steps[i] = acc as i16;
            acc *= i32::from(nums[i]);
        }
        Place {
            space: Space::Sbuf,
            p0: 0,
            off: 0,
            steps,
            nums,
            size,
        }
    }

    /// The descriptor of a place: immediate, or (10%) through a register; rarely a
    /// deliberate fault (out of range / unsupported marker).
    fn tensor<const N: usize>(&mut self, p: &Place<N>) -> Tensor<N> {
        let a = Addr4::at(self.gen, p.space, p.p0, p.off).unwrap();
        let mut t = Tensor {
            start_addr: a,
            step_elem: p.steps,
            num_elem: p.nums,
        };
        if self.rng.chance(0.1) {
            let r = self.set_reg(a.0);
            t.start_addr = Addr4::register(r);
        }
        if self.rng.chance(0.03) {
            // A deliberate fault: the origin stays inside the active bytes (so the
            // validator passes) but the walk leaves them, forwards or backwards.
            let size = p.size;
            let (mut lo, mut hi) = (0i64, 0i64);
            for i in 0..N {
                let span = i64::from(p.steps[i]) * (i64::from(p.nums[i]) - 1);
                lo += span.min(0);
                hi += span.max(0);
            }
            let act = active(self.gen, p.space);
            if hi > 0 {
                t.start_addr = Addr4::at(self.gen, p.space, p.p0, act - size).unwrap();
            } else if lo < 0 {
                t.start_addr = Addr4::at(self.gen, p.space, p.p0, 0).unwrap();
            }
        }
        t
    }

    /// A 4-byte aligned pointer to `size`-byte scalars for `n` channels in the window.
    fn pointer(&mut self, size: u32, n: u8, reg: bool) -> u32 {
        let p0 = self.rng.below(128 - u64::from(n) + 1) as u32;
        let off = self.rng.below(u64::from(WINDOW as u32 / size)) as u32 * size;
        let space = if self.gen != Gen::Maverick && self.rng.chance(0.2) {
            Space::Psum
        } else {
            Space::Sbuf
        };
        let a = Addr4::at(self.gen, space, p0, off).unwrap().0;
        if reg {
            u32::from(self.set_reg(a))
        } else {
            a
        }
    }

    fn maybe_events(&mut self, i: &mut Instruction) {
        if self.rng.chance(0.1) {
            let s = self.rng.below(4) as u8;
            let v = self.rng.range(-2, 2) as i32;
            self.m.set_semaphore(s, v);
            self.r.sems[s as usize] = v;
            i.events.wait_mode = WaitMode::SEM_GE_IMM;
            i.events.wait_idx = s;
            i.events.semaphore_value = self.rng.range(-2, 2) as i32 as u32;
            i.events.update_mode = self.rng.pick(&[
                UpdateMode::SEM_ADD_IMM_COMPLETE,
                UpdateMode::SEM_DEC_READ,
                UpdateMode::EVT_SET_COMPLETE,
            ]);
            i.events.update_idx = self.rng.below(4) as u8;
        }
    }
}

// ---- instruction generators ----------------------------------------------------------------

fn ops_where(gen: Gen, f: impl Fn(AluOp) -> bool) -> Vec<AluOp> {
    AluOp::TABLE
        .iter()
        .map(|r| AluOp(r.value))
        .filter(|o| o.defined_on(gen) && f(*o))
        .collect()
}

fn arith_ops(gen: Gen) -> Vec<AluOp> {
    ops_where(gen, |o| o.is_general_arith_op(gen))
}

fn bitvec_ops(gen: Gen, crc: bool) -> Vec<AluOp> {
    ops_where(gen, |o| o.is_bitvec_op() && (crc || o != AluOp::CRC32))
}

pub fn gen_imm_ld(w: &mut World) -> Instruction {
    let (row, v) = w.row(|v: sem::ImmLd| match v {
        sem::ImmLd::Arith => 3,
        sem::ImmLd::Bitvec => 2,
    });
    let arith = match v {
        sem::ImmLd::Arith => true,
        sem::ImmLd::Bitvec => false,
    };
    let mut i = w.instruction(row);
    let dtype = if arith {
        w.dtype(&PLAIN)
    } else {
        w.dtype(&[Dtype::UINT32, Dtype::UINT16, Dtype::UINT8, Dtype::INT32])
    };
    let n = w.channels();
    let count = w.rng.range(1, 8) as u64;
    let nums = w.factor(count, 2);
    let p = w.place([nums[0], nums[1]], dtype.size().unwrap() as u32, n, true);
    let t = w.tensor(&p);
    if let Body::S2Bn(s) = &mut i.body {
        s.dtype = dtype;
        s.num_active_channels = n;
        s.src_mem_pattern = t;
    }
    i
}

fn random_flops(w: &mut World, n: u8) {
    for c in 0..n as usize {
        let kind = w
            .rng
            .pick(&[None, Some(FlopKind::Arith), Some(FlopKind::Bitvec)]);
        let mut slots = [0u32; 8];
        for s in slots.iter_mut() {
            *s = if kind == Some(FlopKind::Bitvec) {
                w.small_or_any()
            } else {
                w.rng.f32_bits()
            };
        }
        let loaded = if kind.is_none() {
            0
        } else {
            w.rng.range(0, 8) as u8
        };
        w.set_flops(
            c,
            Flops {
                slots,
                loaded,
                kind,
            },
        );
    }
}

pub fn gen_ptr_multi(w: &mut World) -> Vec<Instruction> {
    // The disabled DualBitvec (sunda) now and then: its refusal is part of the contract.
    let (row, v) = w.row(|v: sem::PtrMulti| match v {
        sem::PtrMulti::MultiArith => 65,
        sem::PtrMulti::MultiBitvec => 35,
        sem::PtrMulti::DualArith => 40,
        sem::PtrMulti::DualBitvec => 2,
    });
    // (dual, bit-vector ops, the disabled form)
    let (dual, bitvec, disabled) = match v {
        sem::PtrMulti::MultiArith => (false, false, false),
        sem::PtrMulti::MultiBitvec => (false, true, false),
        sem::PtrMulti::DualArith => (true, false, false),
        sem::PtrMulti::DualBitvec => (true, false, true),
    };
    let n = w.channels();
    let wn = w.rng.range(1, if dual { 4 } else { 8 }) as u16;
    let inner = [
        w.rng.range(1, 3) as u16,
        w.rng.range(1, 3) as u16,
        w.rng.range(1, 2) as u16,
    ];
    let count = u64::from(wn) * inner.iter().map(|&x| u64::from(x)).product::<u64>();
    let (din, dout) = if bitvec || disabled {
        let d = w.dtype(&[Dtype::INT32, Dtype::UINT32, Dtype::UINT16, Dtype::UINT8]);
        (d, d)
    } else {
        (w.dtype(&PLAIN), w.out_dtype(&PLAIN))
    };
    let op = if bitvec || disabled {
        let ops = bitvec_ops(w.gen, w.rng.chance(0.05));
        w.rng.pick(&ops)
    } else {
        let ops = arith_ops(w.gen);
        w.rng.pick(&ops)
    };
    let rev = if dual && !disabled {
        RevOps(w.rng.below(4) as u8)
    } else {
        w.rng.pick(&[RevOps::NONE, RevOps::BOTH])
    };
    let sp = w.place(
        [inner[0], inner[1], inner[2], wn],
        din.size().unwrap() as u32,
        n,
        true,
    );
    let dn = w.factor(count, 4);
    let mut dp = w.place(
        [dn[0], dn[1], dn[2], dn[3]],
        dout.size().unwrap() as u32,
        n,
        dout.size() == Some(4),
    );
    if w.rng.chance(0.25) && din.size() == dout.size() {
        // In place: the same start address (and, half the time, the same pattern).
        dp.space = sp.space;
        dp.p0 = sp.p0;
        dp.off = sp.off;
        if w.rng.chance(0.5) || sp.nums == dp.nums {
            dp.steps = sp.steps;
            dp.nums = sp.nums;
        } else {
            dp = w.place(dp.nums, dout.size().unwrap() as u32, n, false);
        }
        if dp.space == Space::Psum && dout.size() != Some(4) {
            dp.space = Space::Sbuf;
        }
    }
    let mut prog = Vec::new();
    if w.rng.chance(0.4) {
        // A real loader first, matching W or not.
        let mut l = gen_imm_ld(w);
        if let Body::S2Bn(s) = &mut l.body {
            s.num_active_channels = n;
        }
        if w.is_ok_imm_ld(&l) {
            prog.push(l);
        }
    } else {
        random_flops(w, n);
    }
    let mut i = w.instruction(row);
    let src = w.tensor(&sp);
    let dst = w.tensor(&dp);
    if let Body::S4d4Tsm(s) = &mut i.body {
        s.src_mem_pattern = src;
        s.dst_mem_pattern = dst;
        s.in_dtype = din;
        s.out_dtype = dout;
        s.num_active_channels = n;
        s.op = op;
        s.op_dim = TensorSubdim::XYZ;
        s.reverse_operands = rev;
    }
    w.maybe_events(&mut i);
    prog.push(i);
    prog
}

impl World {
    fn small_or_any(&mut self) -> u32 {
        let (a, b) = (self.rng.below(40) as u32, self.rng.next() as u32);
        if self.rng.chance(0.5) {
            a
        } else {
            b
        }
    }

    fn is_ok_imm_ld(&self, i: &Instruction) -> bool {
        is_valid(i, self.gen)
    }
}

fn data4d(w: &mut World, count: u64) -> Data4d {
    let nums = w.factor(count, 4);
    let mut d = Data4d {
        base: if w.rng.chance(0.2) {
            w.rng
                .pick(&[i32::MAX - 3, i32::MIN + 2, 1 << 24, -(1 << 24)])
        } else {
            w.rng.range(-20, 20) as i32
        },
        ..Default::default()
    };
    for k in 0..4 {
        d.num_elem[k] = nums[k];
        d.step_elem[k] = if w.rng.chance(0.1) {
            w.rng.pick(&[i16::MAX, i16::MIN, 1000])
        } else {
            w.rng.range(-5, 5) as i16
        };
    }
    d
}

fn channel_multiplier(w: &mut World) -> i32 {
    if w.rng.chance(0.1) {
        w.rng.pick(&[i32::MAX, i32::MIN, 1 << 30])
    } else {
        w.rng.range(-4, 4) as i32
    }
}

pub fn gen_affine_select(w: &mut World) -> Vec<Instruction> {
    let n = w.channels();
    let (din, dout) = (w.dtype(&PLAIN), w.out_dtype(&PLAIN));
    let psum = w.gen == Gen::Sunda;
    let count = w.rng.range(1, 24) as u64;
    let sn = w.factor(count, 2);
    let sp = w.place([sn[0], sn[1]], din.size().unwrap() as u32, n, psum);
    let dn = w.factor(count, 2);
    let mut dp = w.place(
        [dn[0], dn[1]],
        dout.size().unwrap() as u32,
        n,
        psum && dout.size() == Some(4),
    );
    if w.rng.chance(0.35) && din.size() == dout.size() {
        dp = sp; // in place, as the nki-library SWA path does
        if dp.space == Space::Psum && dout.size() != Some(4) {
            dp = w.place(dn_arr(&dn), dout.size().unwrap() as u32, n, false);
        }
    }
    let fill = w.rng.f32_bits();
    let fill_reg = w.set_reg(fill);
    let (row, sem::AffineSelect::AffineSelect) = w.row(|_: sem::AffineSelect| 1);
    let mut i = w.instruction(row);
    let (src, dst) = (w.tensor(&sp), w.tensor(&dp));
    let mask = data4d(w, count);
    let cm = channel_multiplier(w);
    if let Body::S2d2TsAs(s) = &mut i.body {
        s.num_active_channels = n;
        s.in_out_dtype = DtypePair::new(din, dout);
        s.fill_mode = AffineSelectCmp(w.rng.below(4) as u8);
        s.fill_reg = fill_reg;
        s.mask_pattern = mask;
        s.src_mem_pattern = src;
        s.dst_mem_pattern = dst;
        s.channel_multiplier = cm;
    }
    w.maybe_events(&mut i);
    vec![i]
}

fn dn_arr(v: &[u16]) -> [u16; 2] {
    [v[0], v[1]]
}

pub fn gen_iota(w: &mut World) -> Vec<Instruction> {
    let n = w.channels();
    let dout = w.out_dtype(&PLAIN);
    let count = w.rng.range(1, 24) as u64;
    let dn = w.factor(count, 4);
    let dp = w.place(
        [dn[0], dn[1], dn[2], dn[3]],
        dout.size().unwrap() as u32,
        n,
        dout.size() == Some(4),
    );
    let (row, sem::Iota::Iota) = w.row(|_: sem::Iota| 1);
    let mut i = w.instruction(row);
    let dst = w.tensor(&dp);
    let g = data4d(w, count);
    let cm = channel_multiplier(w);
    if let Body::D4Iota(s) = &mut i.body {
        s.out_dtype = dout;
        s.num_active_channels = n;
        s.channel_multiplier = cm;
        s.src_data_pattern = g;
        s.dst_mem_pattern = dst;
    }
    w.maybe_events(&mut i);
    vec![i]
}

pub fn gen_tensor_scalar(w: &mut World) -> Vec<Instruction> {
    let (row, v) = w.row(|v: sem::TensorScalar| match v {
        sem::TensorScalar::ImmArith => 2,
        _ => 1,
    });
    let (bitvec, ptr_form) = match v {
        sem::TensorScalar::ImmArith => (false, false),
        sem::TensorScalar::ImmBitvec => (true, false),
        sem::TensorScalar::PtrArith => (false, true),
        sem::TensorScalar::PtrBitvec => (true, true),
    };
    let int_arm = !bitvec && w.gen == Gen::Maverick && w.rng.chance(0.3);
    let n = w.channels();
    let (din, dout, mut op0, mut op1) = if bitvec {
        let d = w.dtype(&INTS);
        let ops = bitvec_ops(w.gen, w.rng.chance(0.05));
        (d, d, w.rng.pick(&ops), w.rng.pick(&ops))
    } else if int_arm {
        let ops = ops_where(w.gen, |o| o.is_valid_int_aluop_dve());
        let (a, b) = if w.rng.chance(0.1) {
            (w.dtype(&PLAIN), w.dtype(&PLAIN))
        } else {
            (w.dtype(&INTS), w.dtype(&INTS))
        };
        (a, b, w.rng.pick(&ops), w.rng.pick(&ops))
    } else {
        let ops = arith_ops(w.gen);
        (
            w.dtype(&PLAIN),
            w.out_dtype(&PLAIN),
            w.rng.pick(&ops),
            w.rng.pick(&ops),
        )
    };
    if op0 == AluOp::BYPASS {
        op1 = AluOp::BYPASS;
    }
    if bitvec && din.size() != Some(4) {
        let right = |o: AluOp| matches!(o, AluOp::ARITH_SHIFT_RIGHT | AluOp::LOGICAL_SHIFT_RIGHT);
        let left = |o: AluOp| matches!(o, AluOp::ARITH_SHIFT_LEFT | AluOp::LOGICAL_SHIFT_LEFT);
        if op0 == AluOp::ARITH_SHIFT_RIGHT || (left(op0) && right(op1)) {
            op0 = AluOp::BITWISE_XOR;
        }
        if op1 == AluOp::ARITH_SHIFT_RIGHT {
            op1 = AluOp::BITWISE_OR;
        }
        if op0 == AluOp::BYPASS {
            op1 = AluOp::BYPASS;
        }
    }
    let count = w.rng.range(1, 24) as u64;
    let sn = w.factor(count, 3);
    let sp = w.place([sn[0], sn[1], sn[2]], din.size().unwrap() as u32, n, true);
    let dn = w.factor(count, 3);
    let mut dp = w.place(
        [dn[0], dn[1], dn[2]],
        dout.size().unwrap() as u32,
        n,
        dout.size() == Some(4),
    );
    if w.rng.chance(0.25)
        && din.size() == dout.size()
        && !(sp.space == Space::Psum && dout.size() != Some(4))
    {
        dp = sp;
    }
    let scalar_size = if bitvec {
        din.size().unwrap() as u32
    } else {
        4
    };
    let imm = |w: &mut World| -> (ImmSrc, u32) {
        let kind = if ptr_form {
            ImmSrc::POINTER
        } else {
            w.rng.pick(&[
                ImmSrc::INSTRUCTION,
                ImmSrc::INSTRUCTION,
                ImmSrc::INSTRUCTION,
                ImmSrc::POINTER,
                ImmSrc::REG_PTR,
            ])
        };
        let v = match kind {
            ImmSrc::INSTRUCTION if bitvec || int_arm => {
                let mask = match din.size() {
                    Some(1) if bitvec => 0xFF,
                    Some(2) if bitvec => 0xFFFF,
                    _ => u32::MAX,
                };
                w.small_or_any() & mask
            }
            ImmSrc::INSTRUCTION => w.rng.f32_bits(),
            k => w.pointer(scalar_size, n, k == ImmSrc::REG_PTR),
        };
        (if ptr_form { ImmSrc::INSTRUCTION } else { kind }, v)
    };
    let (i0, i1) = (imm(w), imm(w));
    let mut i = w.instruction(row);
    let (src, dst) = (w.tensor(&sp), w.tensor(&dp));
    if let Body::S3d3Ts(s) = &mut i.body {
        s.src_mem_pattern = src;
        s.dst_mem_pattern = dst;
        s.in_dtype = din;
        s.out_dtype = dout;
        s.num_active_channels = n;
        s.op0 = op0;
        s.op1 = op1;
        s.reverse_operands = RevOps(w.rng.below(4) as u8);
        s.imm0_src = i0.0;
        s.imm0 = ImmVal(i0.1);
        s.imm1_src = i1.0;
        s.imm1 = ImmVal(i1.1);
    }
    w.maybe_events(&mut i);
    vec![i]
}

pub fn gen_ts_select(w: &mut World) -> Vec<Instruction> {
    let n = w.channels();
    let dtype = w.dtype(&PLAIN);
    let size = dtype.size().unwrap() as u32;
    let pred_dtype = match size {
        1 => w.rng.pick(&[Dtype::INT8, Dtype::UINT8]),
        2 => w.rng.pick(&[Dtype::INT16, Dtype::UINT16]),
        _ => w.rng.pick(&[Dtype::INT32, Dtype::UINT32]),
    };
    let count = w.rng.range(1, 24) as u64;
    let sn = w.factor(count, 3);
    let sp = w.place([sn[0], sn[1], sn[2]], size, n, true);
    let dn = w.factor(count, 3);
    let mut dp = w.place([dn[0], dn[1], dn[2]], size, n, size == 4);
    if w.rng.chance(0.25) && !(sp.space == Space::Psum && size != 4) {
        dp = sp;
    }
    let kinds = [ImmSrc::INSTRUCTION, ImmSrc::POINTER, ImmSrc::REG_PTR];
    let (k1, kp) = (w.rng.pick(&kinds), w.rng.pick(&kinds));
    let s1 = match k1 {
        ImmSrc::INSTRUCTION => w.rng.next() as u32,
        k => w.pointer(size, n, k == ImmSrc::REG_PTR),
    };
    let pv = match kp {
        ImmSrc::INSTRUCTION => w.rng.below(2) as u32,
        k => w.pointer(size, n, k == ImmSrc::REG_PTR),
    };
    let (row, sem::TsSelect::TsSelect) = w.row(|_: sem::TsSelect| 1);
    let mut i = w.instruction(row);
    let (src, dst) = (w.tensor(&sp), w.tensor(&dp));
    if let Body::S3d3TsSelect(s) = &mut i.body {
        s.src0_mem_pattern = src;
        s.dst_mem_pattern = dst;
        s.reversed_pred = w.rng.below(2) as u8;
        s.num_active_channels = n;
        s.dtype = dtype;
        s.pred_imm_dtype = pred_dtype;
        s.src1_imm_src = k1;
        s.pred_imm_src = kp;
        s.src1_imm = ImmVal(s1);
        s.pred_imm = ImmVal(pv);
    }
    w.maybe_events(&mut i);
    vec![i]
}

pub fn gen_range_select(w: &mut World) -> Vec<Instruction> {
    let n = w.channels();
    let (din, dout) = (w.dtype(&FPS), w.out_dtype(&FPS));
    let count = w.rng.range(1, 24) as u64;
    let sn = w.factor(count, 2);
    let sp = w.place([sn[0], sn[1]], din.size().unwrap() as u32, n, true);
    let dn = w.factor(count, 2);
    let mut dp = w.place(
        [dn[0], dn[1]],
        dout.size().unwrap() as u32,
        n,
        dout.size() == Some(4),
    );
    if w.rng.chance(0.25)
        && din.size() == dout.size()
        && !(sp.space == Space::Psum && dout.size() != Some(4))
    {
        dp = sp;
    }
    let kinds = [
        ImmSrc::INSTRUCTION,
        ImmSrc::INSTRUCTION,
        ImmSrc::POINTER,
        ImmSrc::REG_PTR,
    ];
    let bound = |w: &mut World| {
        let k = w.rng.pick(&kinds);
        let v = match k {
            ImmSrc::INSTRUCTION => (w.rng.range(-4, 28) as f32 * 0.5).to_bits(),
            k => w.pointer(4, n, k == ImmSrc::REG_PTR),
        };
        (k, v)
    };
    let (b0, b1) = (bound(w), bound(w));
    let cmps = [
        AluOp::IS_EQ,
        AluOp::IS_GT,
        AluOp::IS_GE,
        AluOp::IS_LE,
        AluOp::IS_LT,
    ];
    let (row, sem::RangeSelect::RangeSelect) = w.row(|_: sem::RangeSelect| 1);
    let mut i = w.instruction(row);
    let (src, dst) = (w.tensor(&sp), w.tensor(&dp));
    if let Body::S2d2Rs(s) = &mut i.body {
        s.num_active_channels = n;
        s.in_out_dtype = DtypePair::new(din, dout);
        s.reduce_cmd = if w.rng.chance(0.05) {
            AccumCmd::ACCUMULATE
        } else {
            AccumCmd::IDLE
        };
        s.reduce_op = AluOp::MAX;
        s.base = F32Bits((w.rng.range(-6, 6) as f32 * 0.75).to_bits());
        s.fill_val = F32Bits(0xFF7F_FFFF);
        s.src_mem_pattern = src;
        s.dst_mem_pattern = dst;
        s.comp_op0 = w.rng.pick(&cmps);
        s.comp_op1 = w.rng.pick(&cmps);
        s.bound0_src = b0.0;
        s.bound0 = ImmVal(b0.1);
        s.bound1_src = b1.0;
        s.bound1 = ImmVal(b1.1);
    }
    w.maybe_events(&mut i);
    vec![i]
}

// ---- the generator of each family -------------------------------------------------------

/// A generator of valid random programs; the last instruction is the family's.
pub type Make = fn(&mut World) -> Vec<Instruction>;

// The generator of each family is chosen in its file, `tests/family/<method>.rs`
// (`family::generator`, `family::generators`).

// ---- issue 17a: the DVE/POOL compute families (isa-facts-dve-pool) --------------------------

/// A contiguous, 4-byte aligned placement in SBUF from partition 0 (the bf16 pair's layout).
fn contiguous<const N: usize>(nums: [u16; N], size: u32, off: u32) -> Place<N> {
    let mut steps = [1i16; N];
    let mut acc = 1i32;
    for i in 0..N {
        steps[i] = acc as i16;
        acc *= i32::from(nums[i]);
    }
    Place {
        space: Space::Sbuf,
        p0: 0,
        off,
        steps,
        nums,
        size,
    }
}

/// Three 3-D operands of one element count for S3S3D3_TT; the two sources share a start
/// partition (so two SBUF sources share a quadrant, `tt_valid_partitions`).
fn tt_operands(
    w: &mut World,
    n: u8,
    (lo, hi, out): (Dtype, Dtype, Dtype),
) -> (Tensor<3>, Tensor<3>, Tensor<3>) {
    let count = w.rng.range(1, 24) as u64;
    let size = |d: Dtype| d.size().unwrap() as u32;
    let a = w.factor(count, 3);
    let s0 = w.place([a[0], a[1], a[2]], size(lo), n, true);
    let b = w.factor(count, 3);
    let mut s1 = w.place([b[0], b[1], b[2]], size(hi), n, false);
    s1.p0 = s0.p0;
    let c = w.factor(count, 3);
    let d = w.place([c[0], c[1], c[2]], size(out), n, size(out) == 4);
    (w.tensor(&s0), w.tensor(&s1), w.tensor(&d))
}

pub fn gen_tensor_tensor(w: &mut World) -> Vec<Instruction> {
    let n = w.channels();
    let (row, v) = w.row(|v: sem::TensorTensor| match v {
        sem::TensorTensor::Arith => 2,
        sem::TensorTensor::Bitvec => 1,
    });
    let int_arm = w.gen != Gen::Sunda && w.rng.chance(0.5);
    let (op, dts) = match v {
        sem::TensorTensor::Bitvec => {
            let d = w.dtype(&INTS);
            let ops = [
                AluOp::BITWISE_AND,
                AluOp::BITWISE_OR,
                AluOp::BITWISE_XOR,
                AluOp::LOGICAL_SHIFT_LEFT,
                AluOp::LOGICAL_SHIFT_RIGHT,
            ];
            (w.rng.pick(&ops), (d, d, d))
        }
        sem::TensorTensor::Arith if int_arm => {
            let d = w.rng.pick(&[Dtype::INT32, Dtype::UINT32]);
            let ops = if d == Dtype::INT32 {
                [
                    AluOp::ADD_INT,
                    AluOp::SUBTRACT_INT,
                    AluOp::MAX_INT,
                    AluOp::IS_GT_INT,
                ]
            } else {
                [
                    AluOp::ADD_INT,
                    AluOp::MULT_UINT,
                    AluOp::MAX_UINT,
                    AluOp::IS_LT_UINT,
                ]
            };
            (w.rng.pick(&ops), (d, d, d))
        }
        sem::TensorTensor::Arith => {
            let ops = [
                AluOp::ADD,
                AluOp::SUBTRACT,
                AluOp::MULT,
                AluOp::MAX,
                AluOp::MIN,
                AluOp::IS_GE,
                AluOp::ABSOLUTE_DIFF,
                AluOp::LOGICAL_XOR,
            ];
            let d = (w.dtype(&PLAIN), w.dtype(&PLAIN), w.dtype(&PLAIN));
            (w.rng.pick(&ops), d)
        }
    };
    let (s0, s1, d) = tt_operands(w, n, dts);
    let mut i = w.instruction(row);
    if let Body::S3s3d3Tt(s) = &mut i.body {
        s.in0_in1_dtype = DtypePair::new(dts.0, dts.1);
        s.out_dtype = dts.2;
        s.op = op;
        s.num_active_channels = n;
        s.src0_mem_pattern = s0;
        s.src1_mem_pattern = s1;
        s.dst_mem_pattern = d;
    }
    w.maybe_events(&mut i);
    vec![i]
}

/// Sunda's bf16 trio: contiguous bf16 sources of an even count.
pub fn gen_tensor_tensor_bf16(w: &mut World) -> Vec<Instruction> {
    let n = w.channels();
    let (row, v) = w.row(|_: sem::TensorTensorBf16| 1);
    // The op the behaviour pins (the validator requires it).
    let op = match v {
        sem::TensorTensorBf16::Add => AluOp::ADD,
        sem::TensorTensorBf16::Mult => AluOp::MULT,
        sem::TensorTensorBf16::Sub => AluOp::SUBTRACT,
    };
    let count = 2 * w.rng.range(1, 12) as u16;
    let out = w.dtype(&FPS);
    let mut i = w.instruction(row);
    let (a, b) = (
        contiguous([count, 1, 1], 2, 0),
        contiguous([count, 1, 1], 2, 64),
    );
    let d = contiguous([count, 1, 1], out.size().unwrap() as u32, 128);
    let (a, b, d) = (w.tensor(&a), w.tensor(&b), w.tensor(&d));
    if let Body::S3s3d3Tt(s) = &mut i.body {
        s.in0_in1_dtype = DtypePair::new(Dtype::BFLOAT16, Dtype::BFLOAT16);
        s.out_dtype = out;
        s.op = op;
        s.num_active_channels = n;
        s.src0_mem_pattern = a;
        s.src1_mem_pattern = b;
        s.dst_mem_pattern = d;
    }
    vec![i]
}

/// CopyPredicated (0x72) / CastPredicated (0x99).
pub fn gen_copy_cast_predicated(w: &mut World) -> Vec<Instruction> {
    let n = w.channels();
    let pred = w.dtype(&INTS);
    let data = w.dtype(&PLAIN);
    let (row, v) = w.row(|_: sem::CopyCastPredicated| 1);
    let cast = match v {
        sem::CopyCastPredicated::Copy => false,
        sem::CopyCastPredicated::Cast => true,
    };
    let out = if cast { w.dtype(&PLAIN) } else { data };
    let (s0, s1, d) = tt_operands(w, n, (pred, data, out));
    let mut i = w.instruction(row);
    if let Body::S3s3d3Tt(s) = &mut i.body {
        s.in0_in1_dtype = DtypePair::new(pred, data);
        s.out_dtype = out;
        s.op = AluOp::BYPASS;
        s.num_active_channels = n;
        s.src0_mem_pattern = s0;
        s.src1_mem_pattern = s1;
        s.dst_mem_pattern = d;
    }
    w.maybe_events(&mut i);
    vec![i]
}

/// CopyPredicatedScalar (0xe8), inline scalars.
pub fn gen_copy_predicated_scalar(w: &mut World) -> Vec<Instruction> {
    let n = w.channels();
    let pred = w.dtype(&INTS);
    let dt = w.dtype(&PLAIN);
    let size = dt.size().unwrap() as u32;
    let count = w.rng.range(1, 24) as u64;
    let a = w.factor(count, 3);
    let p = w.place([a[0], a[1], a[2]], pred.size().unwrap() as u32, n, true);
    let b = w.factor(count, 3);
    let d = w.place([b[0], b[1], b[2]], size, n, size == 4);
    let mask = if size == 4 {
        u32::MAX
    } else {
        (1 << (8 * size)) - 1
    };
    let imm = w.rng.next() as u32 & mask;
    let (p, d) = (w.tensor(&p), w.tensor(&d));
    let (row, sem::CopyPredicatedScalar::CopyPredicatedScalar) =
        w.row(|_: sem::CopyPredicatedScalar| 1);
    let mut i = w.instruction(row);
    if let Body::S3d3CpPredScalar(s) = &mut i.body {
        s.pred_mem_pattern = p;
        s.pred_dtype = pred;
        s.reversed_pred = w.rng.below(2) as u8;
        s.num_active_channels = n;
        s.in_dtype = dt;
        s.out_dtype = dt;
        s.src0_imm = ImmVal(imm);
        s.dst_mem_pattern = d;
    }
    w.maybe_events(&mut i);
    vec![i]
}

/// Copy (0x46) / Cast (0x47) / Reciprocal (0x48): one of `row`; `same_dtype` for Copy.
fn gen_s4d4_tr_elementwise(
    w: &mut World,
    row: &'static OpcodeInfo,
    same_dtype: bool,
) -> Vec<Instruction> {
    let n = w.channels();
    let din = w.dtype(&PLAIN);
    let dout = if same_dtype { din } else { w.dtype(&PLAIN) };
    let count = w.rng.range(1, 24) as u64;
    let a = w.factor(count, 4);
    let s = w.place(
        [a[0], a[1], a[2], a[3]],
        din.size().unwrap() as u32,
        n,
        true,
    );
    let b = w.factor(count, 4);
    let so = dout.size().unwrap() as u32;
    let d = w.place([b[0], b[1], b[2], b[3]], so, n, so == 4);
    let (s, d) = (w.tensor(&s), w.tensor(&d));
    let mut i = w.instruction(row);
    if let Body::S4d4Tr(t) = &mut i.body {
        t.src_mem_pattern = s;
        t.in_dtype = din;
        t.out_dtype = dout;
        t.num_active_channels = n;
        t.op = AluOp::BYPASS;
        t.dst_mem_pattern = d;
    }
    w.maybe_events(&mut i);
    vec![i]
}

pub fn gen_copy_cast(w: &mut World) -> Vec<Instruction> {
    let (row, v) = w.row(|_: sem::CopyCast| 1);
    let same_dtype = match v {
        sem::CopyCast::Copy => true,
        sem::CopyCast::Cast => false,
    };
    gen_s4d4_tr_elementwise(w, row, same_dtype)
}

pub fn gen_reciprocal(w: &mut World) -> Vec<Instruction> {
    let (row, sem::Reciprocal::Reciprocal) = w.row(|_: sem::Reciprocal| 1);
    gen_s4d4_tr_elementwise(w, row, false)
}

pub fn gen_memset(w: &mut World) -> Vec<Instruction> {
    let n = w.channels();
    let dt = w.dtype(&PLAIN);
    let size = dt.size().unwrap() as u32;
    let count = w.rng.range(1, 24) as u64;
    let a = w.factor(count, 4);
    let d = w.place([a[0], a[1], a[2], a[3]], size, n, size == 4);
    let mask = if size == 4 {
        u32::MAX
    } else {
        (1 << (8 * size)) - 1
    };
    let v = w.rng.next() as u32 & mask;
    let d = w.tensor(&d);
    let (row, sem::Memset::Memset) = w.row(|_: sem::Memset| 1);
    let mut i = w.instruction(row);
    if let Body::D4Mr(s) = &mut i.body {
        s.dst_element_count = count as u32;
        s.dtype = dt;
        s.num_active_channels = n;
        s.set_value = v;
        s.dst_mem_pattern = d;
    }
    w.maybe_events(&mut i);
    vec![i]
}

/// The TensorReduce family: 0x42/0x52/0x83/0x84, and sunda's 0x8c/0x8d.
pub fn gen_tensor_reduce(w: &mut World) -> Vec<Instruction> {
    use sem::TensorReduce as V;
    let (row, v) = w.row(|_: V| 1);
    // (transposed first, bit-vector, sunda's bf16 pair)
    let (transpose, bitvec, bf16) = match v {
        V::Arith => (false, false, false),
        V::Bitvec => (false, true, false),
        V::TransposeArith => (true, false, false),
        V::TransposeBitvec => (true, true, false),
        V::AddBf16 | V::MaxBf16 => (false, false, true),
    };
    let n = if transpose { 32 } else { w.channels() };
    let (din, dout, op) = match v {
        V::AddBf16 => (Dtype::BFLOAT16, Dtype::FP32, AluOp::ADD),
        V::MaxBf16 => (Dtype::BFLOAT16, w.dtype(&FPS), AluOp::MAX),
        _ if bitvec => {
            let d = w
                .rng
                .pick(&[Dtype::UINT8, Dtype::UINT16, Dtype::UINT32, Dtype::INT32]);
            let op = w
                .rng
                .pick(&[AluOp::BITWISE_OR, AluOp::BITWISE_AND, AluOp::BITWISE_XOR]);
            (d, d, op)
        }
        _ => (
            w.dtype(&PLAIN),
            w.dtype(&FPS),
            w.rng
                .pick(&[AluOp::ADD, AluOp::MAX, AluOp::MIN, AluOp::MULT]),
        ),
    };
    let (nums, op_dim, kept): ([u16; 4], TensorSubdim, u16) = if transpose {
        let k = w.rng.range(1, 3) as u16;
        ([32, k, 1, 1], TensorSubdim::X, k)
    } else if bf16 {
        let k = w.rng.range(1, 4) as u16;
        ([2 * w.rng.range(1, 6) as u16, k, 1, 1], TensorSubdim::X, k)
    } else {
        let (a, b, c) = (
            w.rng.range(1, 5) as u16,
            w.rng.range(1, 4) as u16,
            w.rng.range(1, 4) as u16,
        );
        if w.rng.chance(0.5) {
            ([a, b, c, 1], TensorSubdim::X, b * c)
        } else {
            ([a, b, c, 1], TensorSubdim::XY, c)
        }
    };
    let si = din.size().unwrap() as u32;
    let src = if bf16 {
        contiguous(nums, si, 4 * w.rng.below(8) as u32)
    } else {
        w.place(nums, si, n, true)
    };
    let so = dout.size().unwrap() as u32;
    let dst = w.place([kept, 1, 1, 1], so, n, so == 4);
    let (src, dst) = (w.tensor(&src), w.tensor(&dst));
    let mut i = w.instruction(row);
    if let Body::S4d4Tr(t) = &mut i.body {
        t.src_mem_pattern = src;
        t.in_dtype = din;
        t.out_dtype = dout;
        t.num_active_channels = n;
        t.negated = u8::from(!bitvec && w.rng.chance(0.5));
        t.op = op;
        t.op_dim = op_dim;
        t.dst_mem_pattern = dst;
    }
    w.maybe_events(&mut i);
    vec![i]
}

/// StreamShuffle (0x6a, §14.1, Q20): usually after a LoadMaskSelect (sometimes none has run
/// yet: the refusal), 32 or 64 channels, equal counts, sometimes in place.
pub fn gen_stream_shuffle(w: &mut World) -> Vec<Instruction> {
    let mut out = if w.rng.chance(0.8) {
        gen_load_mask_select(w)
    } else {
        Vec::new()
    };
    let n = w.rng.pick(&[32u8, 64]);
    let dt = w.dtype(&PLAIN);
    let size = dt.size().unwrap() as u32;
    let count = w.rng.range(1, 24) as u64;
    let a = w.factor(count, 4);
    let src = w.place([a[0], a[1], a[2], a[3]], size, n, true);
    // In place: PSUM holds only 4-byte writes, so src (which may be in PSUM) needs size 4.
    let dst = if size == 4 && w.rng.chance(0.25) {
        src
    } else {
        let b = w.factor(count, 4);
        w.place([b[0], b[1], b[2], b[3]], size, n, size == 4)
    };
    let (src, dst) = (w.tensor(&src), w.tensor(&dst));
    let (row, sem::StreamShuffle::StreamShuffle) = w.row(|_: sem::StreamShuffle| 1);
    let mut i = w.instruction(row);
    if let Body::S4d4Tr(t) = &mut i.body {
        t.src_mem_pattern = src;
        t.in_dtype = dt;
        t.out_dtype = dt;
        t.num_active_channels = n;
        t.op = AluOp::BYPASS;
        t.dst_mem_pattern = dst;
    }
    w.maybe_events(&mut i);
    out.push(i);
    out
}

/// StreamTranspose (0x6b): 32 or 64 channels, whole 32-element blocks.
pub fn gen_stream_transpose(w: &mut World) -> Vec<Instruction> {
    let n = w.rng.pick(&[32u8, 64]);
    let dt = w.dtype(&PLAIN);
    let size = dt.size().unwrap() as u32;
    let blocks = w.rng.range(1, 2) as u16;
    let src = w.place([32, blocks, 1, 1], size, n, true);
    let dcount = 32 * blocks - w.rng.below(8) as u16;
    let dst = w.place([dcount, 1, 1, 1], size, n, size == 4);
    let (src, dst) = (w.tensor(&src), w.tensor(&dst));
    let (row, sem::StreamTranspose::StreamTranspose) = w.row(|_: sem::StreamTranspose| 1);
    let mut i = w.instruction(row);
    if let Body::S4d4Tr(t) = &mut i.body {
        t.src_mem_pattern = src;
        t.in_dtype = dt;
        t.out_dtype = dt;
        t.num_active_channels = n;
        t.op = AluOp::BYPASS;
        t.mask_enable = w.rng.below(2) as u8;
        t.dst_mem_pattern = dst;
    }
    w.maybe_events(&mut i);
    vec![i]
}
