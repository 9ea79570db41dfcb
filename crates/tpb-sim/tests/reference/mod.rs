//! A naive reference for every instruction the simulator executes: plain loops written
//! straight from the seed pseudo-code (seed 000 §5b, seed 002 §5.5, isa-facts §6–§10),
//! separate from the simulator's fast path. It shares only `tpb_sim::numerics` (and the
//! decoded `Instruction` types). ASSUMED behaviours are re-implemented here from
//! decisions.md and the assumptions list, so changing one in the simulator breaks the
//! comparison on purpose.
//!
//! The reference models the first [`WINDOW`] bytes of every partition; the test generator
//! keeps every access that is not a deliberate fault inside that window. It is only called
//! on instructions that pass validation.
#![allow(dead_code, clippy::too_many_arguments, clippy::needless_range_loop)]

use tpb_isa::opcode::{sem, OpcodeInfo};
use tpb_isa::wire::{Addr4, Data4d, Events, Tensor};
use tpb_isa::*;
use tpb_sim::numerics::{alu_arith, alu_bitvec, alu_int_as, from_f32, to_f32, Fp8Config};

pub(crate) mod dve_state;
pub use dve_state::{RefLane, SLOTS};

/// Bytes modelled per partition.
pub const WINDOW: usize = 1024;

/// The reference machine.
#[derive(Clone, PartialEq)]
pub struct RefState {
    pub gen: Gen,
    pub fp8: Fp8Config,
    /// [sbuf, psum], partition-major, WINDOW bytes each.
    pub mem: [Vec<u8>; 2],
    pub init: [Vec<bool>; 2],
    pub regs: [u32; 64],
    pub flops: [[u32; 8]; 128],
    pub loaded: [u8; 128],
    /// 0 never loaded, 1 arith, 2 bitvec.
    pub kind: [u8; 128],
    pub sems: [i32; 256],
    pub events: [bool; 256],
    /// The hidden per-lane DVE state (issue 17b) and the mask-select table.
    pub dve: Vec<RefLane>,
    pub mask_select: Option<[u8; 32]>,
}

/// Fault categories.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RefFault {
    Address,
    Unsupported,
    Disabled,
    Wait,
    Event,
    Strict,
}

/// Warning categories.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RefWarn {
    Uninit,
    Loader,
    /// A consumer read DVE lane state no instruction has written (`dve-lane-state`).
    DveUnset,
}

impl RefState {
    pub fn new(gen: Gen, fp8: Fp8Config) -> RefState {
        RefState {
            gen,
            fp8,
            mem: [vec![0; 128 * WINDOW], vec![0; 128 * WINDOW]],
            init: [vec![false; 128 * WINDOW], vec![false; 128 * WINDOW]],
            regs: [0; 64],
            flops: [[0; 8]; 128],
            loaded: [0; 128],
            kind: [0; 128],
            sems: [0; 256],
            events: [false; 256],
            dve: vec![RefLane::default(); 128],
            mask_select: None,
        }
    }
}

// ---- the machine's address map (decisions §3.1), written out again ------------------------

fn sbuf_stride(gen: Gen) -> u64 {
    if gen == Gen::Maverick {
        1 << 20
    } else {
        256 << 10
    }
}

fn active(gen: Gen, space: usize) -> u64 {
    match (space, gen) {
        (0, Gen::Sunda) => 192 << 10,
        (0, Gen::Cayman) => 224 << 10,
        (0, Gen::Mariana) => 256 << 10,
        (0, Gen::Maverick) => 512 << 10,
        (_, Gen::Maverick) => 0,
        _ => 16 << 10,
    }
}

/// (space, partition, offset) of an immediate 29-bit address.
fn locate(gen: Gen, a: u32) -> Option<(usize, u64, u64)> {
    let a = u64::from(a & 0x1FFF_FFFF);
    if gen != Gen::Maverick && (0x200_0000..0x240_0000).contains(&a) {
        let r = a - 0x200_0000;
        return Some((1, r / (32 << 10), r % (32 << 10)));
    }
    let sz = if gen == Gen::Maverick {
        0x800_0000
    } else {
        0x200_0000
    };
    if a < sz {
        Some((0, a / sbuf_stride(gen), a % sbuf_stride(gen)))
    } else {
        None
    }
}

/// Resolves an ADDR4 word: immediate, or a register holding an immediate address.
fn resolve(
    st: &RefState,
    a: Addr4,
    size: usize,
    write: bool,
    psum_ok: bool,
    n: u64,
) -> Result<(usize, u64, u64), RefFault> {
    let marker = a.0 >> 29;
    let word = match marker {
        0 => a.0,
        4 if a.0 & 0x1FFF_FF00 == 0 => {
            let v = st.regs[(a.0 & 0xFF) as usize];
            if v >> 29 != 0 {
                return Err(RefFault::Unsupported);
            }
            v
        }
        _ => return Err(RefFault::Unsupported),
    };
    let (space, p, off) = locate(st.gen, word).ok_or(RefFault::Address)?;
    let ok = ((word & 0x1FFF_FFFF) as usize).is_multiple_of(size)
        && active(st.gen, space) > 0
        && (space == 0 || psum_ok)
        && !(space == 1 && write && size != 4)
        && off < active(st.gen, space)
        && p + n <= 128;
    if ok {
        Ok((space, p, off))
    } else {
        Err(RefFault::Address)
    }
}

// ---- operands -----------------------------------------------------------------------------

/// A resolved tensor operand.
#[derive(Clone, Debug)]
pub struct Opnd {
    space: usize,
    p0: u64,
    origin: i64,
    size: usize,
    steps: Vec<i64>,
    nums: Vec<u64>,
}

fn size_of(d: Dtype) -> usize {
    match d.0 {
        0x02 | 0x03 | 0x0D..=0x0F => 1,
        0x04..=0x07 => 2,
        _ => 4,
    }
}

/// Element k's offset in elements: index_d = (k / Π nums[..d]) % nums[d] (slot 0 fastest).
fn elem_off(steps: &[i64], nums: &[u64], k: u64) -> i64 {
    let mut rest = k;
    let mut off = 0i64;
    for (s, n) in steps.iter().zip(nums) {
        off += (rest % n) as i64 * s;
        rest /= n;
    }
    off
}

impl Opnd {
    fn count(&self) -> u64 {
        self.nums.iter().product()
    }
    fn byte(&self, k: u64) -> i64 {
        self.origin + elem_off(&self.steps, &self.nums, k) * self.size as i64
    }
}

fn operand<const N: usize>(
    st: &RefState,
    t: &Tensor<N>,
    dtype: Dtype,
    write: bool,
    psum_ok: bool,
    n: u64,
) -> Result<Opnd, RefFault> {
    let size = size_of(dtype);
    let (space, p0, off) = resolve(st, t.start_addr, size, write, psum_ok, n)?;
    let o = Opnd {
        space,
        p0,
        origin: off as i64,
        size,
        steps: t.step_elem.iter().map(|&s| i64::from(s)).collect(),
        nums: t.num_elem.iter().map(|&s| u64::from(s)).collect(),
    };
    // Every element's bytes must lie in the partition's active bytes (decisions §3.1).
    for k in 0..o.count() {
        let b = o.byte(k);
        if b < 0 || b as u64 + size as u64 > active(st.gen, space) {
            return Err(RefFault::Address);
        }
    }
    Ok(o)
}

fn index(o: &Opnd, c: u64, byte: i64) -> usize {
    assert!(
        byte >= 0 && byte as usize + o.size <= WINDOW,
        "generator bug: access at byte {byte} outside the reference window"
    );
    (o.p0 + c) as usize * WINDOW + byte as usize
}

/// Reads element k of channel c (zero-extended); notes uninitialised bytes.
fn rd(st: &RefState, o: &Opnd, c: u64, k: u64, uninit: &mut bool) -> u32 {
    let i = index(o, c, o.byte(k));
    let mut v = 0u32;
    for j in 0..o.size {
        v |= u32::from(st.mem[o.space][i + j]) << (8 * j);
        if !st.init[o.space][i + j] {
            *uninit = true;
        }
    }
    v
}

fn wr(st: &mut RefState, o: &Opnd, c: u64, k: u64, v: u32) {
    let i = index(o, c, o.byte(k));
    for j in 0..o.size {
        st.mem[o.space][i + j] = (v >> (8 * j)) as u8;
        st.init[o.space][i + j] = true;
    }
}

/// A pointer-immediate scalar: one element of `dtype` at the address in each channel.
fn pointer(st: &RefState, imm: u32, via_reg: bool, dtype: Dtype, n: u64) -> Result<Opnd, RefFault> {
    let a = if via_reg {
        if imm >= 64 {
            return Err(RefFault::Address);
        }
        Addr4(0x8000_0000 | imm)
    } else {
        Addr4(imm)
    };
    let size = size_of(dtype);
    let (space, p0, off) = resolve(st, a, size, false, true, n)?;
    if off + size as u64 > active(st.gen, space) {
        return Err(RefFault::Address);
    }
    Ok(Opnd {
        space,
        p0,
        origin: off as i64,
        size,
        steps: vec![1],
        nums: vec![1],
    })
}

// ---- events (decisions §3.8) ---------------------------------------------------------------

fn events_before(st: &RefState, e: &Events) -> Result<RefState, RefFault> {
    let mut s = st.clone();
    let v = e.semaphore_value;
    let sem = st.sems[e.wait_idx as usize];
    let cmp = |m: u8, t: i32| match m {
        1 => sem == t,
        2 => sem < t,
        3 => sem <= t,
        4 => sem > t,
        _ => sem >= t,
    };
    match e.wait_mode.0 {
        0 => {}
        m @ 1..=5 => {
            if !cmp(m, v as i32) {
                return Err(RefFault::Wait);
            }
        }
        m @ 0x81..=0x85 => {
            if v >= 64 {
                return Err(RefFault::Event);
            }
            if !cmp(m - 0x80, st.regs[v as usize] as i32) {
                return Err(RefFault::Wait);
            }
        }
        m @ (6 | 7) => {
            if !st.events[e.wait_idx as usize] {
                return Err(RefFault::Wait);
            }
            if m == 7 {
                s.events[e.wait_idx as usize] = false;
            }
        }
        m @ (14 | 15) => {
            if st.events[e.wait_idx as usize] {
                return Err(RefFault::Wait);
            }
            if m == 15 {
                s.events[e.wait_idx as usize] = true;
            }
        }
        _ => return Err(RefFault::Unsupported),
    }
    Ok(s)
}

/// The update, applied to `s` (the state after the wait).
fn events_after(s: &mut RefState, e: &Events) -> Result<(), RefFault> {
    let u = e.update_idx as usize;
    let v = e.semaphore_value;
    let reg = |s: &RefState| {
        if v < 64 {
            Ok(s.regs[v as usize] as i32)
        } else {
            Err(RefFault::Event)
        }
    };
    match e.update_mode.0 {
        0 => {}
        1 | 0x11 => {
            if s.events[u] {
                return Err(RefFault::Event);
            }
            s.events[u] = true;
        }
        2 => {
            if !s.events[u] {
                return Err(RefFault::Event);
            }
            s.events[u] = false;
        }
        3 | 0x13 => s.sems[u] = s.sems[u].wrapping_add(1),
        4 | 0x14 => s.sems[u] = s.sems[u].wrapping_sub(1),
        5 | 0x15 => s.sems[u] = s.sems[u].wrapping_add(v as i32),
        7 | 0x17 => s.sems[u] = s.sems[u].wrapping_sub(v as i32),
        9 | 0x19 => s.sems[u] = v as i32,
        0x87 | 0x97 => s.sems[u] = s.sems[u].wrapping_sub(reg(s)?),
        0x99 => s.sems[u] = reg(s)?,
        _ => return Err(RefFault::Unsupported),
    }
    Ok(())
}

// ---- one step -----------------------------------------------------------------------------

/// Executes a validated instruction. On `Err`, `st` is unchanged.
pub fn step(st: &mut RefState, inst: &Instruction, strict: bool) -> Result<Vec<RefWarn>, RefFault> {
    let mut after_wait = events_before(st, &inst.events)?;
    // The update's conflicts are decided before the instruction runs.
    let mut probe = after_wait.clone();
    events_after(&mut probe, &inst.events)?;
    let mut warns = Vec::new();
    let row = inst.info(st.gen).ok_or(RefFault::Unsupported)?;
    let mut by_behaviour = Ref {
        pre: st,
        st: &mut after_wait,
        warns: &mut warns,
        strict,
    };
    wire::visit_owned(&mut by_behaviour, row, &inst.body).unwrap_or(Err(RefFault::Unsupported))?;
    events_after(&mut after_wait, &inst.events)?;
    *st = after_wait;
    warns.sort();
    warns.dedup();
    Ok(warns)
}

/// The reference's dispatch: the family visitor the opcode list generates (in
/// `tests/family`), each family's handler matching its behaviour variant without a catch-all
/// (the reference never reads the opcode byte, so an alias row is computed as its twin; a new
/// family or variant does not build until it has a reference or an explicit `Unsupported`).
pub(crate) struct Ref<'r> {
    pub(crate) pre: &'r RefState,
    pub(crate) st: &'r mut RefState,
    pub(crate) warns: &'r mut Vec<RefWarn>,
    pub(crate) strict: bool,
}

pub(crate) type Done = Result<(), RefFault>;
pub(crate) type Row = &'static OpcodeInfo;

// The `wire::FamilyVisitor` impl for `Ref` is generated in `tests/family/mod.rs`, calling
// each family's `reference` in `tests/family/<method>.rs`.

fn gate(warns: &[RefWarn], strict: bool) -> Result<(), RefFault> {
    if strict && !warns.is_empty() {
        Err(RefFault::Strict)
    } else {
        Ok(())
    }
}

fn num(r: Result<u32, tpb_sim::numerics::NumError>) -> Result<u32, RefFault> {
    r.map_err(|_| RefFault::Unsupported)
}

/// One arith stage: BYPASS passes the data input whatever the reverse flag.
fn stage_f(op: AluOp, data: f32, s: f32, rev: bool) -> Result<f32, RefFault> {
    let r = if op == AluOp::BYPASS {
        Ok(data)
    } else if rev {
        alu_arith(op, s, data)
    } else {
        alu_arith(op, data, s)
    };
    r.map_err(|_| RefFault::Unsupported)
}

fn stage_b(op: AluOp, data: u32, s: u32, rev: bool, bits: u32) -> Result<u32, RefFault> {
    let r = if op == AluOp::BYPASS {
        alu_bitvec(op, data, 0, bits)
    } else if rev {
        alu_bitvec(op, s, data, bits)
    } else {
        alu_bitvec(op, data, s, bits)
    };
    num(r)
}

fn stage_i(op: AluOp, data: u32, s: u32, rev: bool, signed: bool) -> Result<u32, RefFault> {
    let r = if op == AluOp::BYPASS {
        Ok(data)
    } else if rev {
        alu_int_as(op, s, data, signed)
    } else {
        alu_int_as(op, data, s, signed)
    };
    num(r)
}

/// TensorScalarImmLd: flop[c][i] = fp32(src[c][i]) (arith) or the raw bits (bitvec).
pub(crate) fn imm_ld(
    pre: &RefState,
    st: &mut RefState,
    s: &wire::S2Bn,
    arith: bool,
    warns: &mut Vec<RefWarn>,
    strict: bool,
) -> Result<(), RefFault> {
    let n = u64::from(s.num_active_channels);
    let src = operand(pre, &s.src_mem_pattern, s.dtype, false, true, n)?;
    let w = src.count();
    let mut uninit = false;
    let mut vals = vec![vec![0u32; w as usize]; n as usize];
    for c in 0..n {
        for i in 0..w {
            vals[c as usize][i as usize] = rd(pre, &src, c, i, &mut uninit);
        }
    }
    if uninit {
        warns.push(RefWarn::Uninit);
    }
    gate(warns, strict)?;
    for c in 0..n as usize {
        for i in 0..w as usize {
            let x = vals[c][i];
            st.flops[c][i] = if arith {
                to_f32(s.dtype, x, &pre.fp8).to_bits()
            } else {
                x
            };
        }
        st.loaded[c] = w as u8;
        st.kind[c] = if arith { 1 } else { 2 };
    }
    Ok(())
}

/// TensorScalarPtrMulti (seed 000 §5b) and the sunda Dual (isa-facts §8).
pub(crate) fn ptr_multi(
    pre: &RefState,
    st: &mut RefState,
    s: &wire::S4d4Tsm,
    v: sem::PtrMulti,
    warns: &mut Vec<RefWarn>,
    strict: bool,
) -> Result<(), RefFault> {
    let (dual, bitvec) = match v {
        sem::PtrMulti::MultiArith => (false, false),
        sem::PtrMulti::MultiBitvec => (false, true),
        sem::PtrMulti::DualArith => (true, false),
        sem::PtrMulti::DualBitvec => return Err(RefFault::Disabled),
    };
    let n = u64::from(s.num_active_channels);
    let src = operand(pre, &s.src_mem_pattern, s.in_dtype, false, true, n)?;
    let dst = operand(pre, &s.dst_mem_pattern, s.out_dtype, true, true, n)?;
    let nums = &s.src_mem_pattern.num_elem;
    let w = u64::from(nums[3]);
    let slice = u64::from(nums[0]) * u64::from(nums[1]) * u64::from(nums[2]);
    let bits = 8 * src.size as u32;
    // The op must evaluate.
    if bitvec {
        stage_b(s.op, 1, 1, false, bits)?;
    } else {
        stage_f(s.op, 1.0, 1.0, false)?;
    }
    let need = if dual { 2 * w } else { w };
    let want_kind = if bitvec { 2 } else { 1 };
    for c in 0..n as usize {
        if u64::from(pre.loaded[c]) < need || pre.kind[c] != want_kind {
            warns.push(RefWarn::Loader);
        }
    }
    let mut uninit = false;
    for c in 0..n {
        for k in 0..slice * w {
            rd(pre, &src, c, k, &mut uninit);
        }
    }
    if uninit {
        warns.push(RefWarn::Uninit);
    }
    gate(warns, strict)?;
    let rev = s.reverse_operands.0;
    for c in 0..n {
        let f = pre.flops[c as usize];
        for i in 0..w {
            for z in 0..slice {
                let k = i * slice + z;
                let t = rd(pre, &src, c, k, &mut uninit);
                let out = if bitvec {
                    // dst[i] = reverse == Both ? scalar[i] op src[i] : src[i] op scalar[i]
                    stage_b(s.op, t, f[i as usize], rev == 3, bits)?
                } else {
                    let x = to_f32(s.in_dtype, t, &pre.fp8);
                    let r = if dual {
                        let (a, b) = (f[2 * i as usize], f[2 * i as usize + 1]);
                        let r0 = stage_f(s.op, x, f32::from_bits(a), rev & 1 != 0)?;
                        stage_f(AluOp::MULT, r0, f32::from_bits(b), rev & 2 != 0)?
                    } else {
                        stage_f(s.op, x, f32::from_bits(f[i as usize]), rev == 3)?
                    };
                    from_f32(s.out_dtype, r, &pre.fp8)
                };
                wr(st, &dst, c, k, out);
            }
        }
    }
    Ok(())
}

/// The DATA4D ramp in wrapping i32: base + Σ index_d·step_d + c·channel_multiplier.
fn ramp(d: &Data4d, k: u64, c: u64, cm: i32) -> i32 {
    let mut v = d.base;
    let mut rest = k;
    for (&s, &nm) in d.step_elem.iter().zip(&d.num_elem) {
        let idx = (rest % u64::from(nm)) as i32;
        rest /= u64::from(nm);
        v = v.wrapping_add(idx.wrapping_mul(i32::from(s)));
    }
    v.wrapping_add((c as i32).wrapping_mul(cm))
}

/// AffineSelect (seed 002 §5.5).
pub(crate) fn affine_select(
    pre: &RefState,
    st: &mut RefState,
    s: &wire::S2d2TsAs,
    warns: &mut Vec<RefWarn>,
    strict: bool,
) -> Result<(), RefFault> {
    let n = u64::from(s.num_active_channels);
    let (din, dout) = (s.in_out_dtype.lo(), s.in_out_dtype.hi());
    let psum = pre.gen == Gen::Sunda;
    let src = operand(pre, &s.src_mem_pattern, din, false, psum, n)?;
    let dst = operand(pre, &s.dst_mem_pattern, dout, true, psum, n)?;
    let fill = f32::from_bits(pre.regs[s.fill_reg as usize]);
    let mut uninit = false;
    for c in 0..n {
        for k in 0..src.count() {
            rd(pre, &src, c, k, &mut uninit);
        }
    }
    if uninit {
        warns.push(RefWarn::Uninit);
    }
    gate(warns, strict)?;
    for c in 0..n {
        for k in 0..src.count() {
            let mask_k = ramp(&s.mask_pattern, k, c, s.channel_multiplier);
            let pred = match s.fill_mode.0 {
                0 => mask_k > 0,
                1 => mask_k >= 0,
                2 => mask_k == 0,
                _ => mask_k != 0,
            };
            let x = rd(pre, &src, c, k, &mut uninit);
            let out = if !pred {
                from_f32(dout, fill, &pre.fp8)
            } else if din == dout {
                x
            } else {
                from_f32(dout, to_f32(din, x, &pre.fp8), &pre.fp8)
            };
            wr(st, &dst, c, k, out);
        }
    }
    Ok(())
}

/// Iota (isa-facts §9).
pub(crate) fn iota(pre: &RefState, st: &mut RefState, s: &wire::D4Iota) -> Result<(), RefFault> {
    let n = u64::from(s.num_active_channels);
    let dst = operand(pre, &s.dst_mem_pattern, s.out_dtype, true, true, n)?;
    for c in 0..n {
        for k in 0..dst.count() {
            let v = ramp(&s.src_data_pattern, k, c, s.channel_multiplier);
            let out = match s.out_dtype {
                Dtype::INT8 | Dtype::UINT8 => v as u32 & 0xFF,
                Dtype::INT16 | Dtype::UINT16 => v as u32 & 0xFFFF,
                Dtype::INT32 | Dtype::UINT32 => v as u32,
                d => from_f32(d, v as f32, &pre.fp8),
            };
            wr(st, &dst, c, k, out);
        }
    }
    Ok(())
}

fn is_int(d: Dtype) -> bool {
    matches!(
        d,
        Dtype::INT8 | Dtype::UINT8 | Dtype::INT16 | Dtype::UINT16 | Dtype::INT32 | Dtype::UINT32
    )
}

fn sext(d: Dtype, x: u32) -> u32 {
    match d {
        Dtype::INT8 => x as u8 as i8 as i32 as u32,
        Dtype::INT16 => x as u16 as i16 as i32 as u32,
        _ => x,
    }
}

/// Scalars of one immediate, per channel.
fn scalars(
    pre: &RefState,
    kind: ImmSrc,
    imm: u32,
    dtype: Dtype,
    n: u64,
    uninit: &mut bool,
) -> Result<Vec<u32>, RefFault> {
    let p = match kind {
        ImmSrc::INSTRUCTION => return Ok(vec![imm; n as usize]),
        ImmSrc::POINTER => pointer(pre, imm, false, dtype, n)?,
        ImmSrc::REG_PTR => pointer(pre, imm, true, dtype, n)?,
        _ => return Err(RefFault::Unsupported),
    };
    Ok((0..n).map(|c| rd(pre, &p, c, 0, uninit)).collect())
}

/// TensorScalar / TensorScalarPtr (isa-facts §7, decisions §4.11).
pub(crate) fn tensor_scalar(
    pre: &RefState,
    st: &mut RefState,
    s: &wire::S3d3Ts,
    v: sem::TensorScalar,
    warns: &mut Vec<RefWarn>,
    strict: bool,
) -> Result<(), RefFault> {
    let n = u64::from(s.num_active_channels);
    let src = operand(pre, &s.src_mem_pattern, s.in_dtype, false, true, n)?;
    let dst = operand(pre, &s.dst_mem_pattern, s.out_dtype, true, true, n)?;
    let (bitvec, ptr_form) = match v {
        sem::TensorScalar::ImmArith => (false, false),
        sem::TensorScalar::ImmBitvec => (true, false),
        sem::TensorScalar::PtrArith => (false, true),
        sem::TensorScalar::PtrBitvec => (true, true),
    };
    let int = !bitvec && (s.op0.0 >= 0xC0 || s.op1.0 >= 0xC0);
    let bits = 8 * src.size as u32;
    let signed = matches!(s.in_dtype, Dtype::INT8 | Dtype::INT16 | Dtype::INT32);
    for op in [s.op0, s.op1] {
        if bitvec {
            stage_b(op, 1, 1, false, bits)?;
        } else if int {
            stage_i(op, 1, 1, false, true)?;
        } else {
            stage_f(op, 1.0, 1.0, false)?;
        }
    }
    if int && !(is_int(s.in_dtype) && is_int(s.out_dtype)) {
        return Err(RefFault::Unsupported);
    }
    let sdt = if bitvec { s.in_dtype } else { Dtype::FP32 };
    let mut uninit = false;
    let mut sc = Vec::new();
    for (kind, imm) in [(s.imm0_src, s.imm0.0), (s.imm1_src, s.imm1.0)] {
        let kind = if ptr_form { ImmSrc::POINTER } else { kind };
        // Check both pointers resolve before reading either.
        if kind != ImmSrc::INSTRUCTION {
            pointer(pre, imm, kind == ImmSrc::REG_PTR, sdt, n)?;
        }
        sc.push((kind, imm));
    }
    let s0 = scalars(pre, sc[0].0, sc[0].1, sdt, n, &mut uninit)?;
    let s1 = scalars(pre, sc[1].0, sc[1].1, sdt, n, &mut uninit)?;
    if uninit {
        warns.push(RefWarn::Uninit);
    }
    let mut uninit = false;
    for c in 0..n {
        for k in 0..src.count() {
            rd(pre, &src, c, k, &mut uninit);
        }
    }
    if uninit {
        warns.push(RefWarn::Uninit);
    }
    gate(warns, strict)?;
    let (r0, r1) = (s.reverse_operands.0 & 1 != 0, s.reverse_operands.0 & 2 != 0);
    for c in 0..n {
        let (a, b) = (s0[c as usize], s1[c as usize]);
        for k in 0..src.count() {
            let t = rd(pre, &src, c, k, &mut uninit);
            let out = if bitvec {
                let r = stage_b(s.op0, t, a, r0, bits)?;
                stage_b(s.op1, r, b, r1, bits)?
            } else if int {
                let r = stage_i(s.op0, sext(s.in_dtype, t), a, r0, signed)?;
                stage_i(s.op1, r, b, r1, signed)?
            } else {
                let x = to_f32(s.in_dtype, t, &pre.fp8);
                let r = stage_f(s.op0, x, f32::from_bits(a), r0)?;
                let r = stage_f(s.op1, r, f32::from_bits(b), r1)?;
                from_f32(s.out_dtype, r, &pre.fp8)
            };
            wr(st, &dst, c, k, out);
        }
    }
    Ok(())
}

/// TensorScalarSelect (isa-facts §10.1).
pub(crate) fn ts_select(
    pre: &RefState,
    st: &mut RefState,
    s: &wire::S3d3TsSelect,
    warns: &mut Vec<RefWarn>,
    strict: bool,
) -> Result<(), RefFault> {
    let n = u64::from(s.num_active_channels);
    let src = operand(pre, &s.src0_mem_pattern, s.dtype, false, true, n)?;
    let dst = operand(pre, &s.dst_mem_pattern, s.dtype, true, true, n)?;
    for (kind, imm, d) in [
        (s.src1_imm_src, s.src1_imm.0, s.dtype),
        (s.pred_imm_src, s.pred_imm.0, s.pred_imm_dtype),
    ] {
        if kind != ImmSrc::INSTRUCTION {
            pointer(pre, imm, kind == ImmSrc::REG_PTR, d, n)?;
        }
    }
    let mut uninit = false;
    let size = src.size;
    let src1 = match s.src1_imm_src {
        ImmSrc::INSTRUCTION => {
            let mask = if size == 4 {
                u32::MAX
            } else {
                (1 << (8 * size)) - 1
            };
            vec![s.src1_imm.0 & mask; n as usize]
        }
        k => scalars(pre, k, s.src1_imm.0, s.dtype, n, &mut uninit)?,
    };
    let pred: Vec<bool> = match s.pred_imm_src {
        ImmSrc::INSTRUCTION => vec![s.pred_imm.0 != 0; n as usize],
        k => scalars(pre, k, s.pred_imm.0, s.pred_imm_dtype, n, &mut uninit)?
            .into_iter()
            .map(|x| x != 0)
            .collect(),
    };
    if uninit {
        warns.push(RefWarn::Uninit);
    }
    let take0 = |c: u64| {
        let p = pred[c as usize];
        if s.reversed_pred != 0 {
            !p
        } else {
            p
        }
    };
    let mut uninit = false;
    for c in 0..n {
        if take0(c) {
            for k in 0..src.count() {
                rd(pre, &src, c, k, &mut uninit);
            }
        }
    }
    if uninit {
        warns.push(RefWarn::Uninit);
    }
    gate(warns, strict)?;
    for c in 0..n {
        for k in 0..src.count() {
            let v = if take0(c) {
                rd(pre, &src, c, k, &mut uninit)
            } else {
                src1[c as usize]
            };
            wr(st, &dst, c, k, v);
        }
    }
    Ok(())
}

/// RangeSelect (isa-facts §10.2), reduce_cmd Idle only.
pub(crate) fn range_select(
    pre: &RefState,
    st: &mut RefState,
    s: &wire::S2d2Rs,
    warns: &mut Vec<RefWarn>,
    strict: bool,
) -> Result<(), RefFault> {
    if s.reduce_cmd != AccumCmd::IDLE {
        return Err(RefFault::Unsupported);
    }
    let n = u64::from(s.num_active_channels);
    let (din, dout) = (s.in_out_dtype.lo(), s.in_out_dtype.hi());
    let src = operand(pre, &s.src_mem_pattern, din, false, true, n)?;
    let dst = operand(pre, &s.dst_mem_pattern, dout, true, true, n)?;
    for (kind, imm) in [(s.bound0_src, s.bound0.0), (s.bound1_src, s.bound1.0)] {
        if kind != ImmSrc::INSTRUCTION {
            pointer(pre, imm, kind == ImmSrc::REG_PTR, Dtype::FP32, n)?;
        }
    }
    let mut uninit = false;
    let b0 = scalars(pre, s.bound0_src, s.bound0.0, Dtype::FP32, n, &mut uninit)?;
    let b1 = scalars(pre, s.bound1_src, s.bound1.0, Dtype::FP32, n, &mut uninit)?;
    if uninit {
        warns.push(RefWarn::Uninit);
    }
    let mut uninit = false;
    for c in 0..n {
        for k in 0..src.count() {
            rd(pre, &src, c, k, &mut uninit);
        }
    }
    if uninit {
        warns.push(RefWarn::Uninit);
    }
    gate(warns, strict)?;
    let base = f32::from_bits(s.base.0);
    let fill = f32::from_bits(s.fill_val.0);
    for c in 0..n {
        for k in 0..src.count() {
            let x = base + k as f32;
            let t0 = alu_arith(s.comp_op0, x, f32::from_bits(b0[c as usize]))
                .map_err(|_| RefFault::Unsupported)?;
            let t1 = alu_arith(s.comp_op1, x, f32::from_bits(b1[c as usize]))
                .map_err(|_| RefFault::Unsupported)?;
            let v = rd(pre, &src, c, k, &mut uninit);
            let out = if t0 != 0.0 && t1 != 0.0 {
                if din == dout {
                    v
                } else {
                    from_f32(dout, to_f32(din, v, &pre.fp8), &pre.fp8)
                }
            } else {
                from_f32(dout, fill, &pre.fp8)
            };
            wr(st, &dst, c, k, out);
        }
    }
    Ok(())
}

// ---- issue 17a: the DVE/POOL compute families, written from the fact sheet's pseudo-code
// (isa-facts-dve-pool §1.5, §2.4, §3.4, §4.4, §5, §6.4, §7.4, §15) ---------------------------

/// The low `size` bytes of `v`.
fn low(v: u32, size: usize) -> u32 {
    if size >= 4 {
        v
    } else {
        v & ((1 << (8 * size)) - 1)
    }
}

/// Reads every element of `o` over `n` channels, noting uninitialised reads.
fn rd_all(pre: &RefState, o: &Opnd, n: u64, warns: &mut Vec<RefWarn>) -> Vec<Vec<u32>> {
    let mut uninit = false;
    let v = (0..n)
        .map(|c| {
            (0..o.count())
                .map(|k| rd(pre, o, c, k, &mut uninit))
                .collect()
        })
        .collect();
    if uninit {
        warns.push(RefWarn::Uninit);
    }
    v
}

/// Cast (§4.4): raw when the dtypes are equal, else through FP32.
fn cast(pre: &RefState, a: Dtype, b: Dtype, x: u32) -> u32 {
    if a == b {
        x
    } else {
        from_f32(b, to_f32(a, x, &pre.fp8), &pre.fp8)
    }
}

/// TensorTensor (0x41/0x51) and sunda's trio (0x8a/0x8b/0x8f).
pub(crate) fn tensor_tensor_ref(
    pre: &RefState,
    st: &mut RefState,
    s: &wire::S3s3d3Tt,
    bitvec: bool,
    bf16: bool,
    warns: &mut Vec<RefWarn>,
    strict: bool,
) -> Result<(), RefFault> {
    let n = u64::from(s.num_active_channels);
    let (lo, hi, out) = (s.in0_in1_dtype.lo(), s.in0_in1_dtype.hi(), s.out_dtype);
    let (in0, in1) = if bf16 {
        (Dtype::BFLOAT16, Dtype::BFLOAT16)
    } else {
        (lo, hi)
    };
    let a = operand(pre, &s.src0_mem_pattern, in0, false, true, n)?;
    let b = operand(pre, &s.src1_mem_pattern, in1, false, true, n)?;
    let d = operand(pre, &s.dst_mem_pattern, out, true, true, n)?;
    if a.count() != b.count() || a.count() != d.count() {
        return Err(RefFault::Address);
    }
    let (xa, xb) = (rd_all(pre, &a, n, warns), rd_all(pre, &b, n, warns));
    let mut vals = vec![vec![0u32; a.count() as usize]; n as usize];
    for c in 0..n as usize {
        for k in 0..a.count() as usize {
            let (x, y) = (xa[c][k], xb[c][k]);
            vals[c][k] = if bitvec {
                num(alu_bitvec(s.op, x, y, 8 * size_of(out) as u32))?
            } else if s.op.is_valid_int_aluop() {
                let signed = matches!(lo, Dtype::INT8 | Dtype::INT16 | Dtype::INT32);
                let (xi, yi) = (
                    if signed { sext(lo, x) } else { x },
                    if signed { sext(hi, y) } else { y },
                );
                low(num(alu_int_as(s.op, xi, yi, signed))?, size_of(out))
            } else {
                let r = alu_arith(s.op, to_f32(in0, x, &pre.fp8), to_f32(in1, y, &pre.fp8))
                    .map_err(|_| RefFault::Unsupported)?;
                from_f32(out, r, &pre.fp8)
            };
        }
    }
    gate(warns, strict)?;
    for c in 0..n {
        for k in 0..d.count() {
            wr(st, &d, c, k, vals[c as usize][k as usize]);
        }
    }
    Ok(())
}

/// CopyPredicated / CastPredicated (§2.4): merge where the predicate is zero.
pub(crate) fn copy_cast_predicated_ref(
    pre: &RefState,
    st: &mut RefState,
    s: &wire::S3s3d3Tt,
    warns: &mut Vec<RefWarn>,
    strict: bool,
) -> Result<(), RefFault> {
    let n = u64::from(s.num_active_channels);
    let (lo, hi, out) = (s.in0_in1_dtype.lo(), s.in0_in1_dtype.hi(), s.out_dtype);
    let p = operand(pre, &s.src0_mem_pattern, lo, false, true, n)?;
    let x = operand(pre, &s.src1_mem_pattern, hi, false, true, n)?;
    let d = operand(pre, &s.dst_mem_pattern, out, true, true, n)?;
    if p.count() != x.count() || p.count() != d.count() {
        return Err(RefFault::Address);
    }
    let (pv, xv) = (rd_all(pre, &p, n, warns), rd_all(pre, &x, n, warns));
    gate(warns, strict)?;
    for c in 0..n {
        for k in 0..d.count() {
            let (c_, k_) = (c as usize, k as usize);
            if pv[c_][k_] != 0 {
                wr(st, &d, c, k, cast(pre, hi, out, xv[c_][k_]));
            }
        }
    }
    Ok(())
}

/// CopyPredicatedScalar (§3.4), inline scalar: written where `(pred != 0) == reversed`.
pub(crate) fn copy_predicated_scalar_ref(
    pre: &RefState,
    st: &mut RefState,
    s: &wire::S3d3CpPredScalar,
    warns: &mut Vec<RefWarn>,
    strict: bool,
) -> Result<(), RefFault> {
    if s.src0_imm_src != ImmSrc::INSTRUCTION {
        return Err(RefFault::Unsupported);
    }
    let n = u64::from(s.num_active_channels);
    let p = operand(pre, &s.pred_mem_pattern, s.pred_dtype, false, true, n)?;
    let d = operand(pre, &s.dst_mem_pattern, s.out_dtype, true, true, n)?;
    if p.count() != d.count() {
        return Err(RefFault::Address);
    }
    let pv = rd_all(pre, &p, n, warns);
    gate(warns, strict)?;
    let v = low(s.src0_imm.0, size_of(s.out_dtype));
    for c in 0..n {
        for k in 0..d.count() {
            if (pv[c as usize][k as usize] != 0) == (s.reversed_pred != 0) {
                wr(st, &d, c, k, v);
            }
        }
    }
    Ok(())
}

/// Copy / Cast / Reciprocal (§4.4, §5).
pub(crate) fn copy_cast_ref(
    pre: &RefState,
    st: &mut RefState,
    s: &wire::S4d4Tr,
    reciprocal: bool,
    warns: &mut Vec<RefWarn>,
    strict: bool,
) -> Result<(), RefFault> {
    let n = u64::from(s.num_active_channels);
    let x = operand(pre, &s.src_mem_pattern, s.in_dtype, false, true, n)?;
    let d = operand(pre, &s.dst_mem_pattern, s.out_dtype, true, true, n)?;
    if x.count() != d.count() {
        return Err(RefFault::Address);
    }
    let xv = rd_all(pre, &x, n, warns);
    gate(warns, strict)?;
    for c in 0..n {
        for k in 0..d.count() {
            let v = xv[c as usize][k as usize];
            let out = if reciprocal {
                let r = alu_arith(AluOp::DIVIDE, 1.0, to_f32(s.in_dtype, v, &pre.fp8))
                    .map_err(|_| RefFault::Unsupported)?;
                from_f32(s.out_dtype, r, &pre.fp8)
            } else {
                cast(pre, s.in_dtype, s.out_dtype, v)
            };
            wr(st, &d, c, k, out);
        }
    }
    Ok(())
}

/// Memset (§6.4).
pub(crate) fn memset_ref(
    pre: &RefState,
    st: &mut RefState,
    s: &wire::D4Mr,
) -> Result<(), RefFault> {
    let n = u64::from(s.num_active_channels);
    let d = operand(pre, &s.dst_mem_pattern, s.dtype, true, true, n)?;
    let v = low(s.set_value, size_of(s.dtype));
    for c in 0..n {
        for k in 0..d.count() {
            wr(st, &d, c, k, v);
        }
    }
    Ok(())
}

/// The TensorReduce family (§7.4, Q9, Q10): groups of the reduced slots, folded in element
/// order; 0x83/0x84 move the source as StreamTranspose first.
pub(crate) fn tensor_reduce_ref(
    pre: &RefState,
    st: &mut RefState,
    s: &wire::S4d4Tr,
    transpose: bool,
    bitvec: bool,
    warns: &mut Vec<RefWarn>,
    strict: bool,
) -> Result<(), RefFault> {
    let n = u64::from(s.num_active_channels);
    let x = operand(pre, &s.src_mem_pattern, s.in_dtype, false, true, n)?;
    let d = operand(pre, &s.dst_mem_pattern, s.out_dtype, true, true, n)?;
    let slots = match s.op_dim {
        TensorSubdim::X => 1,
        TensorSubdim::XY => 2,
        TensorSubdim::XYZ => 3,
        TensorSubdim::XYZW => 4,
        _ => return Err(RefFault::Unsupported),
    };
    let group: u64 = s.src_mem_pattern.num_elem[..slots]
        .iter()
        .map(|&m| u64::from(m))
        .product();
    let count = x.count();
    if d.count() * group != count {
        return Err(RefFault::Address);
    }
    let mut xv = rd_all(pre, &x, n, warns);
    if transpose {
        if n % 32 != 0 || count % 32 != 0 {
            return Err(RefFault::Address);
        }
        let src = xv.clone();
        for ch in 0..n as usize {
            for k in 0..count as usize {
                xv[ch][k] = src[32 * (ch / 32) + k % 32][32 * (k / 32) + ch % 32];
            }
        }
    }
    let mut vals = vec![vec![0u32; d.count() as usize]; n as usize];
    for c in 0..n as usize {
        for j in 0..d.count() as usize {
            let g = &xv[c][j * group as usize..(j + 1) * group as usize];
            vals[c][j] = if bitvec {
                let bits = 8 * size_of(s.in_dtype) as u32;
                let mut acc = g[0];
                for &e in &g[1..] {
                    acc = num(alu_bitvec(s.op, acc, e, bits))?;
                }
                acc
            } else {
                let mut acc = to_f32(s.in_dtype, g[0], &pre.fp8);
                for &e in &g[1..] {
                    acc = alu_arith(s.op, acc, to_f32(s.in_dtype, e, &pre.fp8))
                        .map_err(|_| RefFault::Unsupported)?;
                }
                if s.negated != 0 {
                    acc = -acc;
                }
                from_f32(s.out_dtype, acc, &pre.fp8)
            };
        }
    }
    gate(warns, strict)?;
    for c in 0..n {
        for k in 0..d.count() {
            wr(st, &d, c, k, vals[c as usize][k as usize]);
        }
    }
    Ok(())
}

/// StreamShuffle (§14.1, Q20, `stream-shuffle-mask`): dst channel 32g+j gets src channel
/// 32g+table[j] when table[j] < 32 and is left alone otherwise; the table is the last
/// LoadMaskSelect's (none loaded: refused). Only the selected channels are read.
pub(crate) fn stream_shuffle_ref(
    pre: &RefState,
    st: &mut RefState,
    s: &wire::S4d4Tr,
    warns: &mut Vec<RefWarn>,
    strict: bool,
) -> Result<(), RefFault> {
    let n = u64::from(s.num_active_channels);
    let x = operand(pre, &s.src_mem_pattern, s.in_dtype, false, true, n)?;
    let d = operand(pre, &s.dst_mem_pattern, s.out_dtype, true, true, n)?;
    if x.count() != d.count() {
        return Err(RefFault::Address);
    }
    let table = pre.mask_select.ok_or(RefFault::Unsupported)?;
    let source = |ch: u64| {
        let m = u64::from(table[(ch % 32) as usize]);
        (m < 32).then_some(ch / 32 * 32 + m)
    };
    let mut uninit = false;
    let rows: Vec<Option<Vec<u32>>> = (0..n)
        .map(|ch| {
            source(ch).map(|c| {
                (0..x.count())
                    .map(|k| rd(pre, &x, c, k, &mut uninit))
                    .collect()
            })
        })
        .collect();
    if uninit {
        warns.push(RefWarn::Uninit);
    }
    gate(warns, strict)?;
    for (ch, row) in rows.iter().enumerate() {
        for (k, &v) in row.iter().flatten().enumerate() {
            wr(st, &d, ch as u64, k as u64, v);
        }
    }
    Ok(())
}

/// StreamTranspose (§15, Q21): `dst[32g+e][32b+c] = src[32g+c][32b+e]`.
pub(crate) fn stream_transpose_ref(
    pre: &RefState,
    st: &mut RefState,
    s: &wire::S4d4Tr,
    warns: &mut Vec<RefWarn>,
    strict: bool,
) -> Result<(), RefFault> {
    let n = u64::from(s.num_active_channels);
    let x = operand(pre, &s.src_mem_pattern, s.in_dtype, false, true, n)?;
    let d = operand(pre, &s.dst_mem_pattern, s.out_dtype, true, true, n)?;
    if n % 32 != 0 || x.count() % 32 != 0 || d.count() > x.count() {
        return Err(RefFault::Address);
    }
    let xv = rd_all(pre, &x, n, warns);
    gate(warns, strict)?;
    for ch in 0..n {
        for k in 0..d.count() {
            let (g, e, b, c) = (ch / 32, ch % 32, k / 32, k % 32);
            wr(
                st,
                &d,
                ch,
                k,
                xv[(32 * g + c) as usize][(32 * b + e) as usize],
            );
        }
    }
    Ok(())
}
