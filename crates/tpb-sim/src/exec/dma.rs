//! DMAMEMCPY 0xB8 (isa-facts-pe-act-dma §3.4, §3.5) and TensorLoad/TensorStore 0xAA/0xAB
//! (§3.14): byte-granular walks over HBM and on-chip memory through ADDR8 addresses.
//!
//! The walk (§3.4, steps in bytes ASSUMED §8 Q19): element `k` of a pattern starts at
//! `addr + (k % num[0])·step[0] + (k / num[0])·step[1]` and is `elem_size` contiguous bytes.
//! The source yields a byte stream, the destination consumes it (so the two shapes may
//! differ). With a cast or a `compute_op` (the CCE path) each value goes in → fp32 → out, and
//! `compute_op` combines it with the destination's value in fp32 (ASSUMED RNE, §3.5).
//! Plan → check → commit: every address is resolved and checked before the first write.

use super::{Cx, FaultCause};
use crate::assumptions::{dma_register_address, mem2d_first_register};
use crate::numerics::{
    datapath_size, decode_slice_to_f32, encode_bytes_with, encode_slice_from_f32, from_f32,
    max_num, min_num, rows_fusable, to_f32, Fp8Config,
};
use crate::report::{MemAccess, Region, WarningKind, MAX_ACCESS_RUNS};
use crate::state::hbm::{HbmBytes, OutsideHbm};
use crate::state::Memory;
use std::ops::Range;
use tpb_isa::geometry::Space;
use tpb_isa::validate::chains_dma::{elem_bytes, mem2d_offsets, mem2d_registers, uses_cce};
use tpb_isa::wire::{Addr8, Addr8Form, DmaDirect2d, DmaLoc, DmaPattern, Mem2d};
use tpb_isa::{DataSrc, DgeComputeOp, Dtype};

/// The most elements (contiguous runs) one DMA pattern may walk: a simulator limit (each run
/// is resolved and checked before the first write, so the plan is held in memory), far above
/// what a tile copy needs (a 128 × 512 strided copy is 65536).
pub const MAX_DMA_ELEMENTS: u64 = 1 << 22;

/// One contiguous run of bytes a DMA touches: HBM address, or (space, partition, offset).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Run {
    loc: Loc,
    len: u64,
}

/// Why [`Cx::locate_run`] refused an element of a walk.
#[derive(Clone, Copy, Debug)]
enum RunFault {
    /// `base + delta` leaves the address window `base` is in.
    LeavesWindow { base: Addr8, delta: i64 },
    /// An on-chip walk reaches another space.
    CrossesSpace {
        from: (Space, u32, u32),
        to: (Space, u32, u32),
        delta: i64,
    },
    /// HBM bytes outside the HBM.
    OutsideHbm(OutsideHbm),
    /// The generation has no such space.
    NoSpace(Space),
    /// Bytes past a partition's active bytes: `(space, partition, offset)`, end, active.
    PastActive {
        at: (Space, u32, u32),
        end: u64,
        active: u64,
    },
    /// An address in neither HBM nor SBUF/PSUM.
    Unmapped(Addr8),
}

impl RunFault {
    /// The fault, naming the operand.
    #[cold]
    #[inline(never)]
    fn cause(self, gen: tpb_isa::Gen, name: &'static str) -> FaultCause {
        let detail = match self {
            RunFault::LeavesWindow { base, delta } => {
                format!("{:#x} + {delta} leaves its address window", base.0)
            }
            RunFault::CrossesSpace {
                from: (from, p0, o0),
                to: (to, p, off),
                delta,
            } => format!(
                "the walk from {}[p{p0}]+{o0:#x} reaches {}[p{p}]+{off:#x} (offset {delta} \
                 bytes): a DMA pattern stays in the space it starts in (tpb's DMA map \
                 places PSUM after SBUF's last partition, but no fact says the hardware \
                 continues there)",
                from.name(),
                to.name()
            ),
            RunFault::OutsideHbm(e) => format!(
                "hbm bytes {:#x}..{:#x} are outside the {:#x}-byte HBM",
                e.start, e.end, e.size
            ),
            RunFault::NoSpace(space) => format!("{gen} has no {}", space.name()),
            RunFault::PastActive {
                at: (space, p, off),
                end,
                active,
            } => format!(
                "{} partition {p} bytes {off:#x}..{end:#x} pass its {active:#x} active bytes",
                space.name()
            ),
            RunFault::Unmapped(a) => format!(
                "{:#018x} is in neither HBM nor SBUF/PSUM in tpb's DMA map",
                a.0
            ),
        };
        FaultCause::OutOfRange {
            operand: name,
            detail,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Loc {
    Hbm(u64),
    OnChip(Space, u32, u64),
}

impl Cx<'_> {
    /// The base address of an ADDR8 operand: immediate, or a register pair (assumption
    /// `dma-register-address`); other forms are refused.
    fn dma_base(&self, a: Addr8, name: &'static str) -> Result<Addr8, FaultCause> {
        match a.form() {
            Addr8Form::Immediate => Ok(a),
            Addr8Form::Register { lo, hi } => {
                let r = |i: u8| {
                    self.st
                        .regs
                        .get(i as usize)
                        .copied()
                        .ok_or(FaultCause::BadAddress {
                            operand: name,
                            detail: format!("register {i} is outside 0..64"),
                        })
                };
                Ok(dma_register_address(r(lo)?, r(hi)?))
            }
            f => Err(FaultCause::Unsupported {
                what: format!(
                    "{name}: ADDR8 form {f:?} (marker {:#04x}): the DGE shape registers and \
                     address tables are not public (isa-facts-pe-act-dma §3.2)",
                    a.marker()
                ),
            }),
        }
    }

    /// Resolves `len` bytes at `base + delta` to one run, checking it stays inside HBM or
    /// inside one partition's active bytes, and in the space `base` is in (assumption
    /// `dma-byte-steps`: SBUF's last partition is not followed by PSUM's first). `at` is
    /// where `base` is (`base.locate`, found once per walk).
    #[inline]
    fn dma_run(
        &self,
        base: (Addr8, Option<DmaLoc>),
        delta: i64,
        len: u64,
        name: &'static str,
    ) -> Result<Run, FaultCause> {
        self.locate_run(base, delta, len)
            .map_err(|f| f.cause(self.gen, name))
    }

    /// [`Cx::dma_run`]'s rule, its refusal kept as numbers (a walk resolves every element:
    /// the message is written only for the one refused).
    #[inline]
    fn locate_run(
        &self,
        (base, at): (Addr8, Option<DmaLoc>),
        delta: i64,
        len: u64,
    ) -> Result<Run, RunFault> {
        let a = base
            .offset_by(delta)
            .ok_or(RunFault::LeavesWindow { base, delta })?;
        let located = a.locate(self.gen);
        if let (Some(DmaLoc::OnChip(from, p0, o0)), Some(DmaLoc::OnChip(to, p, off))) =
            (at, located)
        {
            if from != to {
                return Err(RunFault::CrossesSpace {
                    from: (from, p0, o0),
                    to: (to, p, off),
                    delta,
                });
            }
        }
        match located {
            Some(DmaLoc::Hbm(x)) => {
                self.st.hbm.check(x, len).map_err(RunFault::OutsideHbm)?;
                Ok(Run {
                    loc: Loc::Hbm(x),
                    len,
                })
            }
            Some(DmaLoc::OnChip(space, p, off)) => {
                let active = self.st.mem.active(space);
                if !self.st.mem.has(space) {
                    return Err(RunFault::NoSpace(space));
                }
                if u64::from(off) + len > active {
                    return Err(RunFault::PastActive {
                        at: (space, p, off),
                        end: u64::from(off) + len,
                        active,
                    });
                }
                Ok(Run {
                    loc: Loc::OnChip(space, p, u64::from(off)),
                    len,
                })
            }
            None => Err(RunFault::Unmapped(a)),
        }
    }

    /// Refuses a write whose new HBM blocks would take the machine past
    /// [`Config::max_hbm_held_bytes`](crate::Config::max_hbm_held_bytes) (before anything is
    /// written).
    fn check_hbm_growth(&self, runs: &[Run], name: &'static str) -> Result<(), FaultCause> {
        let hbm = runs.iter().filter_map(|r| match r.loc {
            Loc::Hbm(x) => Some((x, r.len)),
            Loc::OnChip(..) => None,
        });
        self.st
            .hbm
            .check_growth(hbm)
            .map_err(|e| FaultCause::HbmPages {
                operand: name,
                held: e.held,
                more: e.more,
                limit: e.limit,
            })
    }

    /// Every element run of a DMA pattern, in walk order.
    fn dma_walk<const N: usize>(
        &self,
        p: &DmaPattern<N>,
        elem_size: u16,
        name: &'static str,
    ) -> Result<Vec<Run>, FaultCause> {
        let base = self.dma_base(p.addr, name)?;
        let len = elem_bytes(elem_size);
        let count = p.element_count();
        if count > MAX_DMA_ELEMENTS {
            return Err(FaultCause::OutOfRange {
                operand: name,
                detail: format!(
                    "walks {count} elements, past the simulator's limit of {MAX_DMA_ELEMENTS} \
                     per DMA pattern (fold contiguous elements into elem_size)"
                ),
            });
        }
        self.limit(count.saturating_mul(len), 1)?;
        let base = (base, base.locate(self.gen));
        // Room for a tile's rows without growing (a larger walk grows as it goes).
        let mut runs = Vec::with_capacity(count.min(1024) as usize);
        let mut idx = [0u64; N];
        // The element's offset from the base, kept as the index moves (odometer order).
        let mut delta = 0i64;
        for _ in 0..count {
            push_run(&mut runs, self.dma_run(base, delta, len, name)?);
            for ((i, &num), &step) in idx.iter_mut().zip(&p.num_elem).zip(&p.step_elem) {
                *i += 1;
                delta += i64::from(step);
                if *i < u64::from(num) {
                    break;
                }
                delta -= i64::from(num) * i64::from(step);
                *i = 0;
            }
        }
        Ok(runs)
    }

    fn read_run(&self, r: &Run, out: &mut Vec<u8>) {
        let at = out.len();
        out.resize(at + r.len as usize, 0);
        match r.loc {
            Loc::Hbm(x) => self.st.hbm.read(x, &mut out[at..]),
            Loc::OnChip(space, p, off) => {
                let s = self.st.mem.part_base(space, p) + off as usize;
                out[at..].copy_from_slice(&self.st.mem.data(space)[s..s + r.len as usize]);
            }
        }
    }

    fn uninitialised_in(&self, r: &Run) -> u64 {
        match r.loc {
            Loc::Hbm(x) => self.st.hbm.count_unset(x, r.len),
            Loc::OnChip(space, p, off) => {
                let s = self.st.mem.part_base(space, p) + off as usize;
                self.st.mem.init(space).count_unset(s, r.len as usize)
            }
        }
    }

    fn write_run(&mut self, r: &Run, bytes: &[u8]) {
        match r.loc {
            Loc::Hbm(x) => self.st.hbm.write(x, bytes),
            Loc::OnChip(space, p, off) => {
                let s = self.st.mem.part_base(space, p) + off as usize;
                let (data, init) = self.st.mem.parts_mut(space);
                data[s..s + bytes.len()].copy_from_slice(bytes);
                init.set_range(s, bytes.len());
            }
        }
    }

    /// Reads the runs (warning once for uninitialised bytes) into one byte stream.
    fn gather(&mut self, runs: &[Run], name: &'static str) -> Vec<u8> {
        let mut out = Vec::with_capacity(runs.iter().map(|r| r.len as usize).sum());
        for r in runs {
            self.read_run(r, &mut out);
        }
        self.warn_unset_runs(runs, name);
        out
    }

    /// Warns once for the uninitialised bytes the runs read (a byte read twice counts twice).
    fn warn_unset_runs(&mut self, runs: &[Run], name: &'static str) {
        let unset: u64 = runs.iter().map(|r| self.uninitialised_in(r)).sum();
        if unset > 0 {
            self.out.warn(
                WarningKind::Uninitialised,
                format!(
                    "{name} reads {unset} uninitialised byte{}",
                    if unset == 1 { "" } else { "s" }
                ),
            );
        }
    }

    /// Scatters `bytes` over the runs in order.
    fn scatter(&mut self, runs: &[Run], bytes: &[u8]) {
        let mut at = 0;
        for r in runs {
            let n = r.len as usize;
            self.write_run(r, &bytes[at..at + n]);
            at += n;
        }
    }

    /// Copies the source runs' byte stream onto the destination runs directly, without the
    /// intermediate stream of [`Cx::gather`] and [`Cx::scatter`]: the same bytes land where
    /// the scatter puts them when no destination byte is also a source byte
    /// ([`spaces_disjoint`]; the caller checks).
    fn copy_runs(&mut self, src: &[Run], dst: &[Run]) {
        // The HBM side's rows usually all fall in one placed tensor: found once.
        let hull = hbm_hull(src).or_else(|| hbm_hull(dst));
        let st = &mut *self.st;
        match hull.and_then(|(lo, hi)| st.hbm.segment_mut(lo, hi - lo)) {
            Some(mut seg) => copy_pieces(&mut st.mem, &mut seg, src, dst),
            None => copy_pieces(&mut st.mem, &mut st.hbm, src, dst),
        }
    }

    /// Records the runs' footprint for race detection: HBM as one access of partition 0;
    /// on chip, one access per group of partitions touching the same bytes.
    fn touch_runs(&mut self, runs: &[Run], name: &'static str, write: bool) {
        let Some(list) = &mut self.out.accesses else {
            return;
        };
        for (space, parts, runs) in footprint(runs) {
            let hull = runs[0].start..runs[runs.len() - 1].end;
            let exact = runs.len() <= MAX_ACCESS_RUNS;
            list.push(MemAccess {
                operand: name,
                write,
                region: Region {
                    space,
                    partitions: parts,
                    bytes: hull,
                },
                runs: if exact && runs.len() > 1 {
                    runs
                } else {
                    Vec::new()
                },
                exact,
                shape: None,
            });
        }
    }

    /// The hull of the written runs, for the step report.
    fn written_hull(runs: &[Run]) -> Option<Region> {
        let mut it = runs.iter().map(|r| match r.loc {
            Loc::Hbm(x) => (Space::Hbm, 0, x, r.len),
            Loc::OnChip(s, p, o) => (s, p, o, r.len),
        });
        let (s0, p0, o0, l0) = it.next()?;
        let (mut pl, mut ph, mut bl, mut bh) = (p0, p0 + 1, o0, o0 + l0);
        for (s, p, o, l) in it {
            if s != s0 {
                continue;
            }
            pl = pl.min(p);
            ph = ph.max(p + 1);
            bl = bl.min(o);
            bh = bh.max(o + l);
        }
        Some(Region {
            space: s0,
            partitions: pl..ph,
            bytes: bl..bh,
        })
    }
}

/// Appends `r`, merged into the last run when it continues it (the same place, the next
/// byte): the byte stream, the footprint and the checks are those of the separate runs.
fn push_run(runs: &mut Vec<Run>, r: Run) {
    if let Some(last) = runs.last_mut() {
        if advance(last.loc, last.len) == r.loc {
            last.len += r.len;
            return;
        }
    }
    runs.push(r);
}

/// The place `n` bytes after `loc` (in the same partition, or further in HBM).
fn advance(loc: Loc, n: u64) -> Loc {
    match loc {
        Loc::Hbm(x) => Loc::Hbm(x + n),
        Loc::OnChip(s, p, o) => Loc::OnChip(s, p, o + n),
    }
}

/// [`Cx::copy_runs`] with `hbm` holding every HBM byte the runs touch.
fn copy_pieces(mem: &mut Memory, hbm: &mut impl HbmBytes, src: &[Run], dst: &[Run]) {
    let mut from = src.iter().flat_map(pieces);
    let mut pending: Option<(Loc, u64)> = None;
    for d in dst {
        let mut done = 0;
        while done < d.len {
            let (at, len) = match pending.take().or_else(|| from.next()) {
                Some(p) => p,
                None => return,
            };
            let n = len.min(d.len - done);
            copy_bytes(mem, hbm, at, advance(d.loc, done), n as usize);
            if n < len {
                pending = Some((advance(at, n), len - n));
            }
            done += n;
        }
    }
}

/// The HBM bytes the runs touch, `(first, end)`, if any run is in HBM.
fn hbm_hull(runs: &[Run]) -> Option<(u64, u64)> {
    runs.iter()
        .filter_map(|r| match r.loc {
            Loc::Hbm(x) => Some((x, x + r.len)),
            Loc::OnChip(..) => None,
        })
        .reduce(|(a, b), (c, d)| (a.min(c), b.max(d)))
}

/// Copies `n` bytes from `from` to `to` (places in different spaces) and marks them
/// initialised; `hbm` holds every HBM byte either side touches.
fn copy_bytes(mem: &mut Memory, hbm: &mut impl HbmBytes, from: Loc, to: Loc, n: usize) {
    match (from, to) {
        (Loc::Hbm(x), Loc::OnChip(space, p, off)) => {
            let s = mem.part_base(space, p) + off as usize;
            let (data, init) = mem.parts_mut(space);
            hbm.read(x, &mut data[s..s + n]);
            init.set_range(s, n);
        }
        (Loc::OnChip(space, p, off), Loc::Hbm(x)) => {
            let s = mem.part_base(space, p) + off as usize;
            hbm.write(x, &mem.data(space)[s..s + n]);
        }
        (Loc::OnChip(sa, pa, oa), Loc::OnChip(sb, pb, ob)) => {
            let a = mem.part_base(sa, pa) + oa as usize;
            let b = mem.part_base(sb, pb) + ob as usize;
            // Different spaces: the destination's bytes and the other space's.
            let (data, words, other) = mem.split_for_write(sb, b..b + n);
            data[b..b + n].copy_from_slice(&other[a..a + n]);
            crate::state::Shadow::set_words(words, b, n);
        }
        (Loc::Hbm(x), Loc::Hbm(y)) => {
            // Not reached (one space on both sides is not disjoint); kept total.
            let mut buf = vec![0; n];
            hbm.read(x, &mut buf);
            hbm.write(y, &buf);
        }
    }
}

/// A run as (place, length) pieces for [`Cx::copy_runs`].
fn pieces(r: &Run) -> Option<(Loc, u64)> {
    (r.len > 0).then_some((r.loc, r.len))
}

/// Whether no source run and no destination run are in the same space, so that writing the
/// destination cannot change a byte the source still has to give.
fn spaces_disjoint(src: &[Run], dst: &[Run]) -> bool {
    let space = |r: &Run| match r.loc {
        Loc::Hbm(_) => Space::Hbm,
        Loc::OnChip(s, ..) => s,
    };
    // A bit per space (a fold without stores or bounds checks: this runs over every row).
    let used = |runs: &[Run]| runs.iter().fold(0u8, |m, r| m | 1 << (space(r) as u8));
    used(src) & used(dst) == 0
}

/// Combines an incoming value `a` with the destination's `b` (§3.3: B op= A).
fn combine(op: DgeComputeOp, a: f32, b: f32) -> f32 {
    match op {
        DgeComputeOp::ADD => b + a,
        DgeComputeOp::MULTIPLY => b * a,
        DgeComputeOp::MAX => max_num(a, b),
        DgeComputeOp::MIN => min_num(a, b),
        _ => a,
    }
}

/// The CCE path (§3.5) element by element, the definition: each `in_dtype` value of
/// `data` goes to fp32, is combined with the `out_dtype` value of `old` at the same index
/// (when `compute_op` reads the destination) and is encoded as `out_dtype` into `out`.
fn convert_each(
    in_dtype: Dtype,
    data: &[u8],
    out_dtype: Dtype,
    old: Option<&[u8]>,
    op: DgeComputeOp,
    out: &mut [u8],
    fp8: &Fp8Config,
) {
    let (i, o) = (in_dtype.size().unwrap_or(1), out_dtype.size().unwrap_or(1));
    let raw = |b: &[u8], size: usize, k: usize| {
        let mut w = [0u8; 4];
        w[..size].copy_from_slice(&b[k * size..(k + 1) * size]);
        u32::from_le_bytes(w)
    };
    for k in 0..data.len() / i {
        let a = to_f32(in_dtype, raw(data, i, k), fp8);
        let v = match old {
            Some(b) => combine(op, a, to_f32(out_dtype, raw(b, o, k), fp8)),
            None => a,
        };
        let w = from_f32(out_dtype, v, fp8).to_le_bytes();
        out[k * o..(k + 1) * o].copy_from_slice(&w[..o]);
    }
}

/// [`convert_each`] through the numerics' slice conversions (one dispatched, vectorised
/// loop per pass; a cast of a float input in one pass). Returns `false`, writing nothing,
/// for a dtype outside the datapath's (the caller then converts element by element).
fn convert_stream(
    in_dtype: Dtype,
    data: &[u8],
    out_dtype: Dtype,
    old: Option<&[u8]>,
    op: DgeComputeOp,
    out: &mut [u8],
    fp8: &Fp8Config,
) -> bool {
    let (Some(i), Some(_)) = (datapath_size(in_dtype), datapath_size(out_dtype)) else {
        return false;
    };
    let n = data.len() / i;
    match old {
        None if rows_fusable(in_dtype, out_dtype) => {
            encode_bytes_with::<false>(in_dtype, data, out_dtype, out, fp8, |x| x);
        }
        _ => {
            let mut vals = vec![0f32; n];
            decode_slice_to_f32(in_dtype, data, &mut vals, fp8);
            if let Some(b) = old {
                let mut olds = vec![0f32; n];
                decode_slice_to_f32(out_dtype, b, &mut olds, fp8);
                for (a, &b) in vals.iter_mut().zip(&olds) {
                    *a = combine(op, *a, b);
                }
            }
            encode_slice_from_f32(out_dtype, &vals, out, fp8);
        }
    }
    true
}

/// The footprint of `runs`: per space, groups of consecutive partitions that touch the
/// same bytes, each with its byte runs in address order, overlapping and touching runs
/// merged (HBM is partition 0). The runs are sorted by (space, partition, start) with a
/// stable sort, linear on the usual walk that is already in that order.
fn footprint(runs: &[Run]) -> Vec<(Space, Range<u32>, Vec<Range<u64>>)> {
    let mut keyed: Vec<((u8, u32), Range<u64>)> = runs
        .iter()
        .map(|r| {
            let (key, start) = match r.loc {
                Loc::Hbm(x) => ((2, 0), x),
                Loc::OnChip(Space::Sbuf, p, o) => ((0, p), o),
                Loc::OnChip(_, p, o) => ((1, p), o),
            };
            (key, start..start + r.len)
        })
        .collect();
    keyed.sort_by_key(|(key, r)| (*key, r.start));
    let mut groups: Vec<(Space, Range<u32>, Vec<Range<u64>>)> = Vec::new();
    for part in keyed.chunk_by(|a, b| a.0 == b.0) {
        let (s, p) = part[0].0;
        let space = [Space::Sbuf, Space::Psum, Space::Hbm][s as usize];
        let mut merged: Vec<Range<u64>> = Vec::with_capacity(part.len());
        for (_, r) in part {
            match merged.last_mut() {
                Some(m) if r.start <= m.end => m.end = m.end.max(r.end),
                _ => merged.push(r.clone()),
            }
        }
        match groups.last_mut() {
            Some((gs, gp, gr)) if *gs == space && gp.end == p && *gr == merged => gp.end = p + 1,
            _ => groups.push((space, p..p + 1, merged)),
        }
    }
    groups
}

/// DMAMEMCPY.
pub(super) fn execute_memcpy(cx: &mut Cx<'_>, s: &DmaDirect2d) -> Result<(), FaultCause> {
    // 1. plan: every run of both sides, resolved and checked.
    let src = cx.dma_walk(&s.src, s.src_elem_size, "src")?;
    let dst = cx.dma_walk(&s.dst, s.dst_elem_size, "dst")?;
    let src_bytes: u64 = src.iter().map(|r| r.len).sum();
    let dst_bytes: u64 = dst.iter().map(|r| r.len).sum();
    let cce = uses_cce(s);
    let sizes = (
        s.in_dtype.size().filter(|&z| z <= 4),
        s.out_dtype.size().filter(|&z| z <= 4),
    );
    if cce && (sizes.0.is_none() || sizes.1.is_none()) {
        return Err(FaultCause::Unsupported {
            what: format!(
                "a DMA cast or compute_op on {} -> {}: the CCE path is modelled through fp32 \
                 for dtypes of at most 4 bytes (isa-facts-pe-act-dma §3.5)",
                s.in_dtype, s.out_dtype
            ),
        });
    }
    let (values, out_len) = match sizes {
        (Some(i), Some(o)) if cce => (src_bytes / i as u64, src_bytes / i as u64 * o as u64),
        _ => (src_bytes, src_bytes),
    };
    if out_len != dst_bytes {
        return Err(FaultCause::OutOfRange {
            operand: "dst",
            detail: format!("the destination holds {dst_bytes} bytes; the source gives {out_len}"),
        });
    }
    cx.check_hbm_growth(&dst, "dst")?;
    // A plain copy between spaces moves the bytes directly (no stream in between).
    if !cce && spaces_disjoint(&src, &dst) {
        // 2. diagnose, 3. gate, 4. commit.
        cx.warn_unset_runs(&src, "src");
        cx.touch_runs(&src, "src", false);
        cx.touch_runs(&dst, "dst", true);
        cx.out.gate(cx.cfg)?;
        cx.copy_runs(&src, &dst);
        cx.out.elements = values;
        cx.out.bytes_written = dst_bytes;
        cx.out.written = Cx::written_hull(&dst);
        return Ok(());
    }
    // 2. diagnose, 3. gate.
    let data = cx.gather(&src, "src");
    let old = if s.compute_op != DgeComputeOp::NONE {
        Some(cx.gather(&dst, "dst (read by compute_op)"))
    } else {
        None
    };
    cx.touch_runs(&src, "src", false);
    if old.is_some() {
        cx.touch_runs(&dst, "dst", false);
    }
    cx.touch_runs(&dst, "dst", true);
    cx.out.gate(cx.cfg)?;
    // 4. commit.
    let bytes = match sizes {
        (Some(_), Some(_)) if cce => {
            let fp8 = cx.cfg.fp8;
            let mut out = vec![0u8; out_len as usize];
            let (i, o) = (s.in_dtype, s.out_dtype);
            if !convert_stream(i, &data, o, old.as_deref(), s.compute_op, &mut out, &fp8) {
                convert_each(i, &data, o, old.as_deref(), s.compute_op, &mut out, &fp8);
            }
            out
        }
        _ => data,
    };
    cx.scatter(&dst, &bytes);
    cx.out.elements = values;
    cx.out.bytes_written = dst_bytes;
    cx.out.written = Cx::written_hull(&dst);
    Ok(())
}

/// TensorLoad (registers ← memory) and TensorStore (memory ← registers or immediates).
pub(super) fn execute_mem2d(cx: &mut Cx<'_>, s: &Mem2d, load: bool) -> Result<(), FaultCause> {
    let size = s.dtype.size().unwrap_or(1) as u64;
    let base = cx.dma_base(s.start_addr, "start_addr")?;
    let base = (base, base.locate(cx.gen));
    let runs = mem2d_offsets(s)
        .map(|o| cx.dma_run(base, o, size, "start_addr"))
        .collect::<Result<Vec<_>, _>>()?;
    let first = mem2d_first_register(s);
    let n = runs.len();
    let regs_needed = mem2d_registers(s) as usize;
    if (load || s.src_datasrc == DataSrc::REGISTER) && first + regs_needed > cx.st.regs.len() {
        return Err(FaultCause::OutOfRange {
            operand: "data",
            detail: format!(
                "registers {first}..{} pass the 64 registers",
                first + regs_needed
            ),
        });
    }
    if load {
        let bytes = cx.gather(&runs, "start_addr");
        cx.touch_runs(&runs, "start_addr", false);
        cx.out.gate(cx.cfg)?;
        let mut r = first;
        for k in 0..n {
            let e = &bytes[k * size as usize..(k + 1) * size as usize];
            let mut w = [0u8; 8];
            w[..e.len()].copy_from_slice(e);
            let v = u64::from_le_bytes(w);
            // Narrow integers are zero- or sign-extended into 32 bits; fp32 as bits; u64
            // into an even/odd pair (§3.14).
            match s.dtype {
                Dtype::INT8 => cx.st.regs[r] = v as u8 as i8 as i32 as u32,
                Dtype::INT16 => cx.st.regs[r] = v as u16 as i16 as i32 as u32,
                Dtype::UINT64 => {
                    cx.st.regs[r] = v as u32;
                    cx.st.regs[r + 1] = (v >> 32) as u32;
                    r += 1;
                }
                _ => cx.st.regs[r] = v as u32,
            }
            r += 1;
        }
        cx.out.elements = n as u64;
        return Ok(());
    }
    cx.check_hbm_growth(&runs, "start_addr")?;
    cx.touch_runs(&runs, "start_addr", true);
    cx.out.gate(cx.cfg)?;
    let mut bytes = Vec::with_capacity(n * size as usize);
    if s.src_datasrc == DataSrc::IMMEDIATE {
        bytes.extend_from_slice(&s.data.0[..n * size as usize]);
    } else {
        let mut r = first;
        for _ in 0..n {
            // Registers store their low bits (truncating); u64 from a pair.
            let v = if s.dtype == Dtype::UINT64 {
                let v = u64::from(cx.st.regs[r]) | u64::from(cx.st.regs[r + 1]) << 32;
                r += 2;
                v
            } else {
                let v = u64::from(cx.st.regs[r]);
                r += 1;
                v
            };
            bytes.extend_from_slice(&v.to_le_bytes()[..size as usize]);
        }
    }
    cx.scatter(&runs, &bytes);
    cx.out.elements = n as u64;
    cx.out.bytes_written = bytes.len() as u64;
    cx.out.written = Cx::written_hull(&runs);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    // The footprint race detection records (docs/engines.md; decisions §3.8a): per (space,
    // partition) exactly the bytes the runs touch, in sorted disjoint runs, with equal
    // neighbouring partitions grouped, for runs in any order, overlapping or touching.
    #[test]
    fn the_footprint_holds_exactly_the_bytes_touched() {
        let mut st = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = |m: u64| {
            st ^= st << 13;
            st ^= st >> 7;
            st ^= st << 17;
            st % m
        };
        for case in 0..300 {
            let n = 1 + next(24) as usize;
            let runs: Vec<Run> = (0..n)
                .map(|_| {
                    let len = 1 + next(40);
                    let at = next(200);
                    let loc = match next(4) {
                        0 => Loc::Hbm(at),
                        1 => Loc::OnChip(Space::Psum, next(6) as u32, at),
                        // Often the same bytes on neighbouring partitions.
                        _ if case % 2 == 0 => Loc::OnChip(Space::Sbuf, next(8) as u32, 16),
                        _ => Loc::OnChip(Space::Sbuf, next(8) as u32, at),
                    };
                    Run { loc, len }
                })
                .collect();
            // Spaces by number (Space has no order).
            let num = |s: Space| {
                [Space::Sbuf, Space::Psum, Space::Hbm]
                    .iter()
                    .position(|&x| x == s)
            };
            let key = |l: Loc| match l {
                Loc::Hbm(x) => (num(Space::Hbm), 0, x),
                Loc::OnChip(s, p, o) => (num(s), p, o),
            };
            let want: BTreeSet<(Option<usize>, u32, u64)> = runs
                .iter()
                .flat_map(|r| {
                    let (s, p, o) = key(r.loc);
                    (o..o + r.len).map(move |b| (s, p, b))
                })
                .collect();
            let groups = footprint(&runs);
            let mut got = BTreeSet::new();
            for (s, parts, rs) in &groups {
                assert!(!rs.is_empty() && !parts.is_empty(), "case {case}");
                for w in rs.windows(2) {
                    assert!(
                        w[0].end < w[1].start,
                        "case {case}: runs {rs:?} not disjoint"
                    );
                }
                for p in parts.clone() {
                    for r in rs {
                        for b in r.clone() {
                            assert!(got.insert((num(*s), p, b)), "case {case}: byte twice");
                        }
                    }
                }
            }
            assert_eq!(got, want, "case {case}");
            for w in groups.windows(2) {
                assert!(
                    !(w[0].0 == w[1].0 && w[0].1.end == w[1].1.start && w[0].2 == w[1].2),
                    "case {case}: equal neighbours not grouped"
                );
            }
        }
    }
}
