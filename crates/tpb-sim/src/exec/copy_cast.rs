//! Copy (0x46), Cast (0x47) and Reciprocal (0x48) (isa-facts-dve-pool §4.4, §5;
//! docs/reference/isa.md "S4D4_TR").
//!
//! ```text
//! for c in 0..num_active_channels:
//!   for k in 0..count:          # src and dst walk their own patterns (reshape allowed)
//!     Copy:       dst[c][k] = src[c][k]                         # raw bits
//!     Cast:       dst[c][k] = convert(src[c][k], in → fp32 → out)
//!     Reciprocal: dst[c][k] = convert(1 / fp32(src[c][k]), out)
//! ```

use super::engine::{Bufs, Kernel, Row};
use super::kernels::{self, StageLoop};
use super::{Cx, Parts};
use crate::assumptions::raw_move;
#[cfg(test)]
use crate::assumptions::reciprocal_f32;
use crate::numerics::{
    decode_slice_to_f32, encode_bytes_with, encode_rows_with, encode_slice_from_f32, from_f32,
    rows_fusable, to_f32, Fp8Config,
};
use crate::report::FaultCause;
use tpb_isa::wire::S4d4Tr;
use tpb_isa::{AluOp, Dtype};

/// One Cast element: raw bits when the dtypes are equal, else through FP32
/// (`copy-when-same-dtype`).
pub(crate) fn cast_element(a: Dtype, b: Dtype, raw: u64, fp8: &Fp8Config) -> u64 {
    if raw_move(a, b) {
        raw
    } else {
        u64::from(from_f32(b, to_f32(a, raw as u32, fp8), fp8))
    }
}

/// One Reciprocal element (`reciprocal-ieee`): the plain definition the kernel is checked
/// against.
#[cfg(test)]
pub(crate) fn reciprocal_element(a: Dtype, b: Dtype, raw: u64, fp8: &Fp8Config) -> u64 {
    u64::from(from_f32(b, reciprocal_f32(to_f32(a, raw as u32, fp8)), fp8))
}

/// Executes Copy/Cast, or Reciprocal with `reciprocal`.
pub(super) fn execute(cx: &mut Cx<'_>, s: &S4d4Tr, reciprocal: bool) -> Result<(), FaultCause> {
    let n = u32::from(s.num_active_channels);
    let (src, dst, count) = cx.elementwise(
        (&s.src_mem_pattern, "src_mem_pattern", s.in_dtype),
        (&s.dst_mem_pattern, "dst_mem_pattern", s.out_dtype),
        n,
    )?;
    cx.check_reads(&src, n, |_| true);
    cx.gate()?;
    let mut k = CastKernel {
        from: s.in_dtype,
        to: s.out_dtype,
        raw: !reciprocal && raw_move(s.in_dtype, s.out_dtype),
        reciprocal,
        fp8: cx.cfg.fp8,
        size_out: dst.size,
    };
    let Parts { driver, .. } = cx.parts();
    driver.run(Some(&src), &dst, n, count, u64::MAX, &mut k);
    Ok(())
}

/// Copy / Cast / Reciprocal over the chunked engine: the slice codecs around the FP32 hub,
/// the same values as [`cast_element`] / [`reciprocal_element`] (checked by
/// `kernel_matches_the_element_functions` below).
#[derive(Clone)]
struct CastKernel {
    from: Dtype,
    to: Dtype,
    raw: bool,
    reciprocal: bool,
    fp8: Fp8Config,
    size_out: usize,
}

impl Kernel for CastKernel {
    /// From input to output bytes in one loop: a copy, or decode → (reciprocal) → encode
    /// fused for the float inputs (`encode_bytes_with`, the same codecs as `load`/`store`).
    fn map(&mut self, b: &mut Bufs, c: u32, k0: u64, input: &[u8], out: &mut [u8]) {
        if self.raw {
            out.copy_from_slice(&input[..out.len()]);
            return;
        }
        let mut l = Fused {
            k: self,
            input,
            out,
            done: 0,
        };
        if self.reciprocal {
            // `reciprocal-ieee`: reciprocal_f32(x) = alu_arith(DIVIDE, 1, x), the stage
            // DIVIDE with the operands reversed and 1 as the scalar.
            kernels::with_stage(AluOp::DIVIDE, true, &mut l);
        } else {
            kernels::with_stage(AluOp::BYPASS, false, &mut l);
        }
        let done = l.done;
        if done == 0 && !input.is_empty() {
            self.load(b, c, k0, input);
            self.store(b, c, k0, out);
        }
    }

    /// Every channel in one call: a copy is one `copy_from_slice` (memcpy) per row; Cast and
    /// Reciprocal from 2- and 4-byte float inputs run every row in one dispatched loop
    /// (`encode_rows_with`, the codecs of [`Kernel::map`]). 1-byte inputs keep the engine's
    /// byte table (faster than decoding), integer inputs the chunked walk.
    fn map_rows<'r, I: Iterator<Item = Row<'r>>>(&mut self, rows: I) -> Result<(), I> {
        if self.raw {
            for r in rows {
                let n = r.out.len().min(r.input.len());
                r.out[..n].copy_from_slice(&r.input[..n]);
            }
            return Ok(());
        }
        let (i, o) = (self.from, self.to);
        if i.size() == Some(1) || !rows_fusable(i, o) {
            return Err(rows);
        }
        let rows = rows.map(|r| ((), r.input, r.out));
        if self.reciprocal {
            // `reciprocal-ieee`: alu_arith(DIVIDE, 1, x); the encoder pins a NaN to the
            // canonical one as `alu_arith` does.
            encode_rows_with::<_, true>(i, o, &self.fp8, rows, |(), x| 1.0 / x);
        } else {
            encode_rows_with::<_, false>(i, o, &self.fp8, rows, |(), x| x);
        }
        Ok(())
    }

    fn load(&mut self, b: &mut Bufs, _c: u32, _k0: u64, input: &[u8]) {
        if self.raw {
            b.bytes[..input.len()].copy_from_slice(input);
            return;
        }
        let n = decode_slice_to_f32(self.from, input, &mut b.f, &self.fp8);
        if self.reciprocal {
            kernels::arith(AluOp::DIVIDE, true, &mut b.f[..n], 1.0);
        }
    }

    fn store(&mut self, b: &mut Bufs, _c: u32, _k0: u64, out: &mut [u8]) {
        if self.raw {
            out.copy_from_slice(&b.bytes[..out.len()]);
            return;
        }
        let n = out.len() / self.size_out;
        encode_slice_from_f32(self.to, &b.f[..n], out, &self.fp8);
    }

    fn pure_key(&self, _c: u32, _k0: u64) -> Option<u64> {
        // Each output is a function of its input element alone, the same everywhere.
        Some(0)
    }
}

/// [`StageLoop`] of [`CastKernel::map`]: the stage (`x op 1`) inside the encoder's loop.
struct Fused<'a, 'k> {
    k: &'k CastKernel,
    input: &'a [u8],
    out: &'a mut [u8],
    done: usize,
}

impl StageLoop for &mut Fused<'_, '_> {
    #[inline(always)]
    fn run(self, f: impl Fn(f32, f32) -> f32 + Copy) {
        let k = self.k;
        self.done =
            encode_bytes_with::<false>(k.from, self.input, k.to, self.out, &k.fp8, |x| f(x, 1.0));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::{Config, Machine};
    use tpb_isa::geometry::Space;
    use tpb_isa::wire::{Addr4, Tensor4};
    use tpb_isa::{Body, Gen, Instruction, Opcode};

    const DTYPES: [Dtype; 12] = [
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

    /// The engine kernel against the element functions (the plain definition), every dtype
    /// pair, Cast and Reciprocal, a strided source and 600 random elements per channel (more
    /// than 512, so 1-byte inputs take the engine's byte table).
    #[test]
    fn kernel_matches_the_element_functions() {
        let gen = Gen::Mariana;
        let fp8 = Fp8Config::default();
        let count = 600u16;
        for from in DTYPES {
            let mut m = Machine::new(Config::new(gen));
            let size = from.size().unwrap();
            let mut state = 0x9E37_79B9u32;
            let raw: Vec<u8> = (0..2 * u64::from(count) * 2 * size as u64)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 17;
                    state ^= state << 5;
                    state as u8
                })
                .collect();
            let t = crate::HostTensor::at(Space::Sbuf, 0..2).elements(from, 2 * u64::from(count));
            m.write_tensor(&t, &raw).unwrap();
            for to in DTYPES {
                for op in [Opcode::CAST, Opcode::RECIPROCAL] {
                    let mut i = Instruction::new(op, gen);
                    if let Body::S4d4Tr(s) = &mut i.body {
                        let t4 = |off: u32, step: i16| Tensor4 {
                            start_addr: Addr4::at(gen, Space::Sbuf, 0, off).unwrap(),
                            step_elem: [step, 1, 1, 1],
                            num_elem: [count, 1, 1, 1],
                        };
                        s.in_dtype = from;
                        s.out_dtype = to;
                        s.num_active_channels = 2;
                        s.src_mem_pattern = t4(0, 2);
                        s.dst_mem_pattern = t4(0x4000, 1);
                    }
                    m.step(&i).unwrap();
                    let out_t = crate::HostTensor::at(Space::Sbuf, 0..2)
                        .offset(0x4000)
                        .elements(to, u64::from(count));
                    let got = m.read_tensor(&out_t).unwrap();
                    let so = to.size().unwrap();
                    for c in 0..2usize {
                        for k in 0..count as usize {
                            let at = (c * 2 * count as usize + 2 * k) * size;
                            let mut w = [0u8; 8];
                            w[..size].copy_from_slice(&raw[at..at + size]);
                            let x = u64::from_le_bytes(w);
                            let want = if op == Opcode::CAST {
                                cast_element(from, to, x, &fp8)
                            } else {
                                reciprocal_element(from, to, x, &fp8)
                            };
                            let g = &got[(c * count as usize + k) * so..][..so];
                            assert_eq!(
                                g,
                                &want.to_le_bytes()[..so],
                                "{op} {from}->{to} channel {c} element {k} input {x:#x}"
                            );
                        }
                    }
                }
            }
        }
    }
}
