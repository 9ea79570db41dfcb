//! TensorScalarPtrMulti{Arith,Bitvec} (0x4F / 0x5F) and the sunda Dual (0x87): one ALU op
//! over a [W, Z, Y, X] tensor with a new preloaded scalar per W slice (seed 000 §5,
//! isa-facts §8).
//!
//! ```text
//! W = src.num_elem[3]                      # 1..=8 (Dual: 1..=4 pairs)
//! for c in 0..num_active_channels:
//!   for i in 0..W:
//!     for each (z, y, x) of the slice:     # element k = i·Z·Y·X + …, slot 0 fastest
//!       t = src[c][k]
//!       singular: dst[c][k] = (reverse == Both) ? scalar[i] op t : t op scalar[i]
//!       Dual:     dst[c][k] = stage(MULT, stage(op, t, flop[2i], rev & 1), flop[2i+1], rev & 2)
//! ```
//!
//! The singular form is the TensorScalar formula with op1 = BYPASS (decisions §4.11), so
//! Both reverses stage 0 and a bypass stage 1 (assumption `bypass-passes-data`). Arith runs
//! through FP32; Bitvec on raw bits. The loader contract is checked, not enforced: W beyond
//! the loaded count, or flops of the other kind, read stale slots and warn (decisions §3.6).

use super::access::{bytes_to_raw, raw_to_bytes};
use super::engine::{Bufs, Kernel, Row};
use super::kernels;
use super::{num_fault, Cx, Parts, Role};
use crate::assumptions::{dual_pair_slots, FLOP_SLOTS};
use crate::numerics::{fusable_input, rows_fusable, Fp8Config};
use crate::report::{FaultCause, WarningKind};
use crate::state::{FlopKind, Flops};
use tpb_isa::wire::S4d4Tsm;
use tpb_isa::{AluOp, Dtype, RevOps};

/// `dual`: sunda's scalar pairs (…Dual…); `bitvec`: the Bitvec twin.
pub(super) fn execute(
    cx: &mut Cx<'_>,
    s: &S4d4Tsm,
    dual: bool,
    bitvec: bool,
) -> Result<(), FaultCause> {
    let kind = if bitvec {
        FlopKind::Bitvec
    } else {
        FlopKind::Arith
    };
    let n = u32::from(s.num_active_channels);
    let (read, write) = (Role::READ, Role::WRITE);
    let src = cx.tensor(&s.src_mem_pattern, "src_mem_pattern", s.in_dtype, read, n)?;
    let dst = cx.tensor(&s.dst_mem_pattern, "dst_mem_pattern", s.out_dtype, write, n)?;
    let nums = s.src_mem_pattern.num_elem;
    let w = u64::from(nums[3]);
    let slice: u64 = nums[..3].iter().map(|&x| u64::from(x)).product();
    let count = slice * w;
    let max_w = if dual { 4 } else { FLOP_SLOTS as u64 };
    if !(1..=max_w).contains(&w) || count != dst.count() {
        return Err(FaultCause::OutOfRange {
            operand: "src_mem_pattern",
            detail: format!("W = {w} slices of {slice} elements"),
        });
    }
    cx.limit(count, n)?;
    let bits = 8 * src.size as u32;
    match kind {
        FlopKind::Bitvec => kernels::check_bitvec(s.op, bits),
        FlopKind::Arith => kernels::check_arith(s.op).and_then(|_| {
            if dual {
                kernels::check_arith(AluOp::MULT)
            } else {
                Ok(())
            }
        }),
    }
    .map_err(num_fault)?;

    let need = if dual { 2 * w } else { w };
    loader_check(cx, n, need, kind);
    cx.check_reads(&src, n, |_| true);
    cx.gate()?;

    let fp8 = cx.cfg.fp8;
    let Parts { driver, flops, .. } = cx.parts();
    let mut k = PtrMultiKernel {
        kind,
        dual,
        op: s.op,
        rev: s.reverse_operands,
        in_dtype: s.in_dtype,
        out_dtype: s.out_dtype,
        size_in: src.size,
        size_out: dst.size,
        bits,
        fp8,
        slice,
        // FP32 or BF16 in, one stage of a fusable op: encode straight from the input bytes.
        fused: kind == FlopKind::Arith
            && !dual
            && fusable_input(s.in_dtype)
            && kernels::fusable(s.op),
        flops,
    };
    // The fused path changes scalar inside `map` itself, so its chunks may span W slices
    // (fewer, longer chunks for small slices). Only `map` does: strided operands (which go
    // through `load`/`store`) and 1-byte inputs (whose byte table is per scalar, see
    // `pure_key`) keep chunks within a slice.
    let split = if k.fused && src.size > 1 && src.dims.is_dense() && dst.dims.is_dense() {
        u64::MAX
    } else {
        slice
    };
    driver.run(Some(&src), &dst, n, count, split, &mut k);
    Ok(())
}

/// The ImmLd that loads flops of `kind`.
fn loader_name(kind: FlopKind) -> &'static str {
    match kind {
        FlopKind::Arith => "TensorScalarImmLdArith",
        FlopKind::Bitvec => "TensorScalarImmLdBitvec",
    }
}

/// Warns about channels whose flops do not hold `need` slots of `kind` (decisions §3.6),
/// naming the loader that actually ran on them; a channel both short and of the other kind
/// gets both warnings.
fn loader_check(cx: &mut Cx<'_>, n: u32, need: u64, kind: FlopKind) {
    let (mut short, mut other) = (Vec::new(), Vec::new());
    let (mut least, mut most) = (u8::MAX, 0u8);
    // Who loaded the short channels: each loader once, in first-seen order.
    let mut short_by: Vec<&str> = Vec::new();
    let mut other_by: Vec<&str> = Vec::new();
    for c in 0..n {
        let f = &cx.st.flops[c as usize];
        if u64::from(f.loaded) < need {
            short.push(c);
            least = least.min(f.loaded);
            most = most.max(f.loaded);
            let by = f.kind.map_or("no ImmLd", loader_name);
            if !short_by.contains(&by) {
                short_by.push(by);
            }
        }
        if let Some(k) = f.kind.filter(|&k| k != kind) {
            other.push(c);
            if !other_by.contains(&loader_name(k)) {
                other_by.push(loader_name(k));
            }
        }
    }
    let loader = loader_name(kind);
    if !short.is_empty() {
        cx.out.warn(
            WarningKind::LoaderMismatch,
            format!(
                "reads {need} flop slot{} per channel but channel{} {} had only {} loaded, by \
                 {}; stale slots are read",
                if need == 1 { "" } else { "s" },
                if short.len() == 1 { "" } else { "s" },
                ranges(&short),
                if least == most {
                    least.to_string()
                } else {
                    format!("{least}..={most}")
                },
                short_by.join(" and ")
            ),
        );
    }
    if !other.is_empty() {
        cx.out.warn(
            WarningKind::LoaderMismatch,
            format!(
                "expects flops from {loader} but channel{} {} were loaded by {}; their bits \
                 are read as they are",
                if other.len() == 1 { "" } else { "s" },
                ranges(&other),
                other_by.join(" and ")
            ),
        );
    }
}

/// `0..4, 7, 9..11` for a sorted list.
pub(super) fn ranges(v: &[u32]) -> String {
    let mut out = Vec::new();
    let mut i = 0;
    while i < v.len() {
        let mut j = i;
        while j + 1 < v.len() && v[j + 1] == v[j] + 1 {
            j += 1;
        }
        out.push(if i == j {
            v[i].to_string()
        } else {
            format!("{}..{}", v[i], v[j] + 1)
        });
        i = j + 1;
    }
    out.join(", ")
}

#[derive(Clone)]
struct PtrMultiKernel<'a> {
    kind: FlopKind,
    dual: bool,
    op: AluOp,
    rev: RevOps,
    in_dtype: Dtype,
    out_dtype: Dtype,
    size_in: usize,
    size_out: usize,
    bits: u32,
    fp8: Fp8Config,
    slice: u64,
    /// Whether [`Kernel::map`] takes the [`kernels::bytes_fused`] path.
    fused: bool,
    flops: &'a [Flops],
}

impl Kernel for PtrMultiKernel<'_> {
    fn map(&mut self, b: &mut Bufs, c: u32, k0: u64, input: &[u8], out: &mut [u8]) {
        if self.fused {
            // One call per W slice the chunk touches: scalar[i] for elements of slice i.
            let (din, dout) = (self.size_in, self.size_out);
            let len = input.len() / din;
            let slots = &self.flops[c as usize].slots;
            let mut j = 0usize;
            while j < len {
                let k = k0 + j as u64;
                let i = (k / self.slice) as usize;
                let end = ((i as u64 + 1) * self.slice - k0).min(len as u64) as usize;
                kernels::bytes_fused(
                    self.op,
                    f32::from_bits(slots.get(i).copied().unwrap_or(0)),
                    self.in_dtype,
                    &input[j * din..end * din],
                    self.out_dtype,
                    &mut out[j * dout..end * dout],
                    &self.fp8,
                );
                j = end;
            }
        } else {
            self.load(b, c, k0, input);
            self.store(b, c, k0, out);
        }
    }

    /// The fused path over every channel in one dispatched call, a row per W slice (2- and
    /// 4-byte inputs: a 1-byte input goes through the engine's byte table per scalar).
    fn map_rows<'r, I: Iterator<Item = Row<'r>>>(&mut self, rows: I) -> Result<(), I> {
        let (i, o) = (self.in_dtype, self.out_dtype);
        if !(self.fused && self.size_in > 1 && self.slice > 0 && rows_fusable(i, o)) {
            return Err(rows);
        }
        let (din, dout) = (self.size_in, self.size_out);
        let (slice, flops) = (self.slice as usize, self.flops);
        let slices = rows.flat_map(move |r| {
            let slots = &flops[r.c as usize].slots;
            let ins = r.input.chunks(slice * din);
            let outs = r.out.chunks_mut(slice * dout);
            // scalar[i] for the elements of slice i.
            ins.zip(outs)
                .enumerate()
                .map(move |(w, (a, b))| (f32::from_bits(slots.get(w).copied().unwrap_or(0)), a, b))
        });
        kernels::rows_fused(self.op, i, o, &self.fp8, slices);
        Ok(())
    }

    /// Each element depends on its input and on the W slice's scalar(s) only.
    fn pure_key(&self, c: u32, k0: u64) -> Option<u64> {
        let sc = &self.flops[c as usize].slots;
        let i = (k0 / self.slice) as usize;
        Some(if self.dual {
            let (a, m) = dual_pair_slots(i);
            (u64::from(sc[a]) << 32) | u64::from(sc[m])
        } else {
            u64::from(sc[i])
        })
    }

    fn load(&mut self, b: &mut Bufs, _c: u32, _k0: u64, input: &[u8]) {
        let len = input.len() / self.size_in;
        match self.kind {
            FlopKind::Arith => {
                kernels::decode(self.in_dtype, input, &mut b.f[..len], &self.fp8);
            }
            FlopKind::Bitvec => bytes_to_raw(self.size_in, input, &mut b.u[..len]),
        }
    }

    fn store(&mut self, b: &mut Bufs, c: u32, k0: u64, out: &mut [u8]) {
        let len = out.len() / self.size_out;
        let i = (k0 / self.slice) as usize; // the W slice: scalar[i]
        let sc = &self.flops[c as usize].slots;
        let (rev0, rev1) = (self.rev.0 & 1 != 0, self.rev.0 & 2 != 0);
        match self.kind {
            FlopKind::Arith => {
                let xs = &mut b.f[..len];
                if self.dual {
                    let (a, m) = dual_pair_slots(i);
                    kernels::arith(self.op, rev0, xs, f32::from_bits(sc[a]));
                    kernels::arith(AluOp::MULT, rev1, xs, f32::from_bits(sc[m]));
                } else if kernels::fusable(self.op) {
                    // The op (ADD/MULT ignore `rev`) and the bypass stage in the encoder.
                    let s = f32::from_bits(sc[i]);
                    kernels::f32_fused(self.op, s, xs, self.out_dtype, out, &self.fp8);
                    return;
                } else {
                    kernels::arith(self.op, rev0, xs, f32::from_bits(sc[i]));
                    kernels::arith(AluOp::BYPASS, rev1, xs, 0.0);
                }
                kernels::encode(self.out_dtype, xs, out, &self.fp8);
            }
            FlopKind::Bitvec => {
                let xs = &mut b.u[..len];
                kernels::bitvec(self.op, rev0, xs, sc[i], self.bits);
                kernels::bitvec(AluOp::BYPASS, rev1, xs, 0, self.bits);
                raw_to_bytes(self.size_out, xs, out);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::numerics::{alu_arith, from_f32, Fp8Config};
    use crate::{Config, FlopKind, Flops, HostTensor, Machine};
    use tpb_isa::geometry::Space;
    use tpb_isa::wire::{Addr4, Tensor};
    use tpb_isa::{AluOp, Body, Dtype, Gen, Instruction, Opcode, RevOps, TensorSubdim};

    /// The fused FP32 path through the engine, for each way it lends input and output:
    /// output after the input, before it, in place (snapshot), and into PSUM (not lent).
    #[test]
    fn fused_fp32_ptr_multi_matches_per_element_numerics() {
        let gen = Gen::Cayman;
        let (p, x, w) = (4u32, 300u16, 3u16);
        let epp = u64::from(x) * u64::from(w);
        let mut xs: Vec<f32> = (0..u64::from(p) * epp)
            .map(|i| (i as f32 - 600.0) * 0.77)
            .collect();
        xs[5] = f32::NAN;
        xs[6] = -f32::NAN;
        xs[7] = f32::INFINITY;
        let slots = [1.5f32, -0.5, 3.0e38, 0.0, 1.0, 2.0, 3.0, 4.0].map(f32::to_bits);
        let cfg = Fp8Config::default();
        let at = |space, off| Addr4::at(gen, space, 0, off).unwrap();
        for (space, src, dst) in [
            (Space::Sbuf, 0, 8192),
            (Space::Sbuf, 8192, 0),
            (Space::Sbuf, 0, 0),
            (Space::Psum, 0, 0),
        ] {
            for (op, out) in [
                (AluOp::MULT, Dtype::FP8_EXP4),
                (AluOp::ADD, Dtype::BFLOAT16),
                (AluOp::BYPASS, Dtype::FP8_EXP5),
                (AluOp::MULT, Dtype::FP32),
            ] {
                if space == Space::Psum && out != Dtype::FP32 {
                    continue; // a PSUM write needs a 4-byte dtype
                }
                let mut m = Machine::new(Config::new(gen));
                let bytes: Vec<u8> = xs.iter().flat_map(|v| v.to_le_bytes()).collect();
                let t = HostTensor::at(Space::Sbuf, 0..p)
                    .offset(src)
                    .elements(Dtype::FP32, epp);
                m.write_tensor(&t, &bytes).unwrap();
                for c in 0..p as usize {
                    let f = Flops {
                        slots,
                        loaded: 8,
                        kind: Some(FlopKind::Arith),
                    };
                    m.set_flops(c, f).unwrap();
                }
                let mut i = Instruction::new(Opcode::TENSOR_SCALAR_PTR_MULTI_ARITH, gen);
                if let Body::S4d4Tsm(s) = &mut i.body {
                    let pat = |a| Tensor::<4> {
                        start_addr: a,
                        step_elem: [1, 1, 1, i16::try_from(x).unwrap()],
                        num_elem: [x, 1, 1, w],
                    };
                    s.src_mem_pattern = pat(at(Space::Sbuf, src as u32));
                    s.dst_mem_pattern = pat(at(space, dst as u32));
                    s.in_dtype = Dtype::FP32;
                    s.out_dtype = out;
                    s.num_active_channels = p as u8;
                    s.op = op;
                    s.op_dim = TensorSubdim::XYZ;
                    s.reverse_operands = RevOps::NONE;
                }
                m.step(&i).unwrap();
                let got = m
                    .read_tensor(&HostTensor::at(space, 0..p).offset(dst).elements(out, epp))
                    .unwrap();
                let size = out.size().unwrap();
                for (k, &v) in xs.iter().enumerate() {
                    let s = f32::from_bits(slots[k % epp as usize / usize::from(x)]);
                    let r = alu_arith(op, v, s).unwrap();
                    let r = alu_arith(AluOp::BYPASS, r, 0.0).unwrap();
                    let want = from_f32(out, r, &cfg).to_le_bytes();
                    assert_eq!(
                        got[k * size..(k + 1) * size],
                        want[..size],
                        "{space:?} {src}->{dst} {op} {out} element {k}"
                    );
                }
            }
        }
    }
}
