//! The PE calls: `nki.isa.nc_matmul` (one LoadWeights 0x01, then one Matmul 0x02, as NKI
//! lowers it; isa-facts-pe-act-dma §1.1–§1.2) and the Tensor-engine `nc_transpose` (a
//! LoadWeights of the data, then a Matmul against an identity; §1.2 "Transpose", §1.8).
//! Both go through the synchronised emission like every other call: each instruction lands
//! on the PE queue with the semaphore waits its footprint needs.
//!
//! `accumulate=None` follows NKI (nki-api §3.2): the first matmul into a PSUM tile
//! overwrites it, later ones into the same tile add to it. tpb keeps, per core, the PSUM
//! views a matmul has written, each of its allocation (`crate::matmul_groups`: a tensor
//! placed at another's bytes starts its own group); a write by any other instruction, an
//! allocation or a free over the bytes ends that view's group, so the next matmul
//! overwrites again (accumulating onto PSUM a non-matmul wrote is undefined on NC-v2/v3,
//! §1.5.2 "Hazard rule").
//!
//! Every check a PE call can fail before it runs is made before the LoadWeights is emitted;
//! a Matmul that still faults afterwards (an uninitialised moving tile under strict reads,
//! `strict_exact`) leaves the LoadWeights in the program, like a kernel stopped there.

use crate::build::packed;
use crate::core::Core;
use crate::error::NkiError;
use crate::names::Cmp;
use crate::tile::{Index, Tile};
use crate::NkiEngine;
use tpb_isa::geometry::Space;
use tpb_isa::validate::chains_pe::{pe_in_dtype_ok, QUADRANTS};
use tpb_isa::wire::{matmul_psum_dtype, op, S3Lw, S3d3Mm};
use tpb_isa::{Dtype, Gen, Instruction, PeFp32Mode};
use tpb_sim::StepReport;

/// The PE array: 128 rows (contraction) × 128 columns (stationary free size), §1.2.
const PE_ROWS: u32 = 128;
const PE_COLS: u64 = 128;
/// One PSUM bank per partition: 2 KiB = 512 fp32 (§1.6); a v2/v3 matmul writes inside one.
const PSUM_BANK_BYTES: u64 = 2048;

/// The fp32 mode a PE input needs: fp32 multiplies full fp32 values (`high`), every other
/// input `none` (§1.5.1, §1.7).
fn fp32_mode(d: Dtype) -> PeFp32Mode {
    if d == Dtype::FP32 {
        PeFp32Mode::HIGH
    } else {
        PeFp32Mode::NONE
    }
}

/// The quadrant mask (`row_grp` / `col_grp`, §1.5.8) of `n` partitions starting at
/// partition `start`: the smallest mask of the validator's table whose span starts there and
/// holds them. An operand that starts elsewhere has no mask.
fn quadrants(operand: &'static str, start: u32, n: u64) -> Result<u16, NkiError> {
    QUADRANTS
        .iter()
        .filter(|&&(_, s, span)| s == start && n <= u64::from(span))
        .min_by_key(|&&(_, _, span)| span)
        .map(|&(m, _, _)| u16::from(m))
        .ok_or_else(|| {
            shape_error(
                operand,
                format!(
                    "{n} partitions starting at partition {start}: the PE takes operands that \
                     start on a quadrant whose span holds them (partition 0 for up to 128, 64 \
                     for up to 64, 32 or 96 for up to 32; isa-facts-pe-act-dma §1.5.8)"
                ),
            )
        })
}

fn shape_error(operand: &'static str, detail: String) -> NkiError {
    NkiError::Shape { operand, detail }
}

/// How a PE call writes PSUM.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PeWrite {
    /// `dst = stationary.T @ moving` (psum flags 3: a one-instruction group).
    Overwrite,
    /// `dst += stationary.T @ moving` (flags 2: accumulate, close the group).
    Accumulate,
    /// The bit-accurate transpose (`transpose_mode` 1 on LoadWeights and Matmul, §1.8).
    Transpose,
}

impl Core {
    /// `nki.isa.nc_matmul(dst, stationary, moving, accumulate=None)`:
    /// `dst = stationary.T @ moving` into PSUM as one LoadWeights then one Matmul on the PE
    /// queue. The contraction is the partition dimension of both inputs (≤ 128); the
    /// stationary free size (≤ 128) becomes dst's partitions and the moving free size
    /// (≤ 512, one PSUM bank of fp32) dst's free size. `accumulate=True` adds to dst (psum
    /// flags 2), `False` overwrites (flags 3), `None` overwrites the first time a matmul
    /// writes this PSUM view and adds after that (NKI's default; see the module docs).
    /// The result is exact per tpb's documented order (exact products summed in fp32
    /// sequentially over the contraction, one rounding per step; assumption
    /// `pe-summation-order`), not the hardware's bits: the Matmul's report carries that
    /// label. fp32 inputs run as `fp32_mode = high`. Returns the LoadWeights and the Matmul
    /// reports.
    pub fn nc_matmul(
        &mut self,
        dst: &Tile,
        stationary: &Tile,
        moving: &Tile,
        accumulate: Option<bool>,
    ) -> Result<Vec<StepReport>, NkiError> {
        self.check_nc_matmul(dst, stationary, moving)?;
        let accumulate = accumulate.unwrap_or_else(|| self.matmul_groups.is_open(dst));
        let write = if accumulate {
            PeWrite::Accumulate
        } else {
            PeWrite::Overwrite
        };
        self.emit_pe(dst, stationary, moving, write)
    }

    /// Whether [`Core::nc_matmul`] would accept these operands (nothing is emitted): every
    /// check it makes before it runs, for a caller that emits the matmul later
    /// (`nl.matmul`).
    pub fn check_nc_matmul(
        &self,
        dst: &Tile,
        stationary: &Tile,
        moving: &Tile,
    ) -> Result<(), NkiError> {
        self.check_pe(dst, stationary, Some(moving))?;
        if (stationary.dtype == Dtype::FP32) != (moving.dtype == Dtype::FP32) {
            return Err(shape_error(
                "moving",
                format!(
                    "moving {} with stationary {}: fp32 pairs only with fp32 \
                     (isa-facts-pe-act-dma §1.7)",
                    moving.dtype, stationary.dtype
                ),
            ));
        }
        Ok(())
    }

    /// `nki.isa.nc_matmul(..., is_transpose=True)`: the bit-accurate PE transpose (NC-v3+,
    /// `transpose_mode` 1, assumption `pe-transpose`): `moving` is the `K × K` identity the
    /// kernel passes and dst gets stationary's bits transposed, NaN/Inf included. tpb runs
    /// it for fp32 data (the PSUM layout of a 16/8-bit transpose result is not public,
    /// §1.8). On sunda the flag only affects profiling (NC-v2 has no transpose mode, §1.2),
    /// so the call is an ordinary overwriting matmul there.
    pub fn nc_matmul_transpose(
        &mut self,
        dst: &Tile,
        stationary: &Tile,
        moving: &Tile,
    ) -> Result<Vec<StepReport>, NkiError> {
        if self.gen() == Gen::Sunda {
            return self.nc_matmul(dst, stationary, moving, Some(false));
        }
        self.check_pe(dst, stationary, Some(moving))?;
        if stationary.dtype != Dtype::FP32 || moving.dtype != Dtype::FP32 {
            return Err(NkiError::NotSupported {
                what: format!(
                    "nc_matmul is_transpose=True on {} data: tpb models the fp32 transpose; the \
                     PSUM layout of a 16/8-bit transpose result is not public \
                     (isa-facts-pe-act-dma §1.8)",
                    stationary.dtype
                ),
            });
        }
        if moving.free_elements() != u64::from(moving.partitions()) {
            return Err(shape_error(
                "moving",
                format!(
                    "shape {:?}: the transpose multiplies by a square identity (K × K)",
                    moving.shape
                ),
            ));
        }
        self.emit_pe(dst, stationary, moving, PeWrite::Transpose)
    }

    /// `nki.isa.nc_transpose(dst, data, engine=engine.tensor)`: `dst[i, j] = data[j, i]`
    /// through the PE, data `[K, M]` in SBUF (K, M ≤ 128, free dims flattened) to dst
    /// `[M, K]` in PSUM. The moving operand is a `K × K` identity of data's dtype (built
    /// once per core and dtype in SBUF with a Memset and an AffineSelect).
    ///
    /// - fp32 data on cayman and mariana: the bit-accurate transpose (`transpose_mode` 1,
    ///   assumption `pe-transpose`): dst (fp32) gets data's bits, NaN, Inf and -0.0 included.
    /// - otherwise (bf16, fp16, fp8, or fp32 on sunda, which has no transpose mode): a
    ///   Matmul with the identity into an fp32 dst, as NKI does on NC-v2. Finite non-zero
    ///   values come out exact; a zero may lose its sign and NaN/Inf spread along the row
    ///   (not bit-accurate, nki-api §3.2), and the report says exact-per-our-order. NKI
    ///   wants dst in data's dtype; a 16/8-bit PSUM transpose result has no public layout
    ///   (§1.8), so dst must be fp32 here (`nl.transpose` copies it on to data's dtype).
    pub fn nc_transpose_pe(
        &mut self,
        dst: &Tile,
        data: &Tile,
    ) -> Result<Vec<StepReport>, NkiError> {
        let (k, m) = (data.partitions(), data.free_elements());
        if dst.partitions() as u64 != m || dst.free_elements() != u64::from(k) {
            return Err(shape_error(
                "dst",
                format!(
                    "shape {:?} for data {:?}: the transpose of a [{k}, {m}] tile is [{m}, {k}]",
                    dst.shape, data.shape
                ),
            ));
        }
        let bit_accurate = data.dtype == Dtype::FP32 && self.gen() != Gen::Sunda;
        if !bit_accurate && dst.dtype != Dtype::FP32 {
            return Err(NkiError::NotSupported {
                what: format!(
                    "nc_transpose of {} data into a {} PSUM tile on the Tensor engine: the \
                     PSUM layout of a 16/8-bit transpose result is not public \
                     (isa-facts-pe-act-dma §1.8); give an fp32 dst (the values are exact) or \
                     use nl.transpose",
                    data.dtype, dst.dtype
                ),
            });
        }
        if bit_accurate && dst.dtype != data.dtype {
            return Err(shape_error(
                "dst",
                format!("dtype {} must equal data's {}", dst.dtype, data.dtype),
            ));
        }
        self.check_pe(dst, data, None)?;
        let identity = self.identity(data.dtype, data.start_partition, k)?;
        let write = if bit_accurate {
            PeWrite::Transpose
        } else {
            PeWrite::Overwrite
        };
        self.emit_pe(dst, data, &identity, write)
    }

    /// `nki.isa.nc_transpose(dst, data, engine=…)`: `engine.vector` is the 32 × 32
    /// StreamTranspose; `engine.tensor` the PE transpose ([`Core::nc_transpose_pe`]);
    /// `engine.unknown` takes the Vector engine for a whole `[32, 32]` tile unless it goes
    /// from SBUF to PSUM, else the PE.
    pub fn nc_transpose_any(
        &mut self,
        dst: &Tile,
        data: &Tile,
        engine: NkiEngine,
    ) -> Result<Vec<StepReport>, NkiError> {
        // The PE reads SBUF and writes PSUM: the one case where it is the natural engine.
        let pe_spaces = data.space == Space::Sbuf && dst.space == Space::Psum;
        let vector_shape = data.partitions() == 32 && data.free_elements() == 32 && !pe_spaces;
        match engine {
            NkiEngine::Tensor => self.nc_transpose_pe(dst, data),
            NkiEngine::Unknown if !vector_shape => self.nc_transpose_pe(dst, data),
            _ => self.nc_transpose(dst, data, engine).map(|r| vec![r]),
        }
    }

    /// The checks every PE call makes before anything is emitted: spaces, the array shape,
    /// the PSUM bank and the input dtypes.
    /// `moving: None` is the transpose's identity, which the call builds itself (`n` = K).
    fn check_pe(
        &self,
        dst: &Tile,
        stationary: &Tile,
        moving: Option<&Tile>,
    ) -> Result<(), NkiError> {
        if self.gen() == Gen::Maverick {
            return Err(NkiError::NotSupported {
                what: "a PE call on maverick: the v5 PSUM geometry and how an accumulation \
                       group ends are not public (isa-facts-pe-act-dma §1.5.2, §1.6)"
                    .into(),
            });
        }
        let operands = [
            Some((stationary, "stationary")),
            moving.map(|m| (m, "moving")),
        ];
        for (t, operand) in operands.into_iter().flatten() {
            if t.space != Space::Sbuf {
                return Err(shape_error(
                    operand,
                    format!(
                        "{t} is in {}; the PE reads SBUF only (§1.2)",
                        t.space.name()
                    ),
                ));
            }
            if !pe_in_dtype_ok(t.dtype, self.gen()) || t.dtype == Dtype::UINT8 {
                return Err(shape_error(
                    operand,
                    format!(
                        "dtype {}: the PE takes fp8 (e3m4, e4m3, e5m2), bfloat16, float16 or \
                         float32 (isa-facts-pe-act-dma §1.7)",
                        t.dtype
                    ),
                ));
            }
        }
        if dst.space != Space::Psum {
            return Err(shape_error(
                "dst",
                format!(
                    "{dst} is in {}; the PE writes PSUM only (§1.2)",
                    dst.space.name()
                ),
            ));
        }
        let (k, m) = (stationary.partitions(), stationary.free_elements());
        let (mk, n) = moving.map_or((k, u64::from(k)), |t| (t.partitions(), t.free_elements()));
        if mk != k || k > PE_ROWS {
            let whose = if moving.is_some() { "moving" } else { "data" };
            return Err(shape_error(
                whose,
                format!(
                    "{mk} partitions, but stationary has {k}: the contraction (partition) sizes \
                     must be equal and at most {PE_ROWS}"
                ),
            ));
        }
        if m > PE_COLS {
            return Err(shape_error(
                "stationary",
                format!("free size {m}: at most {PE_COLS} (the PE array's columns, §1.2)"),
            ));
        }
        if u64::from(dst.partitions()) != m || dst.free_elements() != n {
            return Err(shape_error(
                "dst",
                format!(
                    "shape {:?}: stationary.T @ moving is [{m}, {n}] (stationary free size × \
                     moving free size)",
                    dst.shape
                ),
            ));
        }
        // The generation's Matmul out dtypes (`has_valid_mm_out_dtype`, declared once in
        // tpb_isa::wire): bf16 is one from NC-v4, but how it is rounded is not public.
        if dst.dtype == Dtype::BFLOAT16
            && matmul_psum_dtype(self.gen(), Some(dst.dtype)) == Some(Dtype::BFLOAT16)
        {
            return Err(NkiError::NotSupported {
                what: format!(
                    "a bfloat16 nc_matmul dst ({}): how RNE or stochastic rounding is chosen \
                     for the PSUM write is not public (isa-facts-pe-act-dma §1.6); use an \
                     fp32 dst",
                    self.gen()
                ),
            });
        }
        if dst.dtype != Dtype::FP32 {
            return Err(shape_error(
                "dst",
                format!(
                    "dtype {}: the PE writes fp32 to PSUM (isa-facts-pe-act-dma §1.6)",
                    dst.dtype
                ),
            ));
        }
        // The array's rows are the SBUF partitions the stationary data came from: the
        // moving data must stream through the same rows (one row_grp, §1.5.8).
        quadrants("stationary", stationary.start_partition, u64::from(k))?;
        quadrants("dst", dst.start_partition, m)?;
        if let Some(mv) = moving.filter(|t| t.start_partition != stationary.start_partition) {
            return Err(shape_error(
                "moving",
                format!(
                    "starts at partition {}, stationary at {}: both feed the same PE rows \
                     (row_grp, isa-facts-pe-act-dma §1.5.8)",
                    mv.start_partition, stationary.start_partition
                ),
            ));
        }
        let (start, len) = dst.hull();
        if start / PSUM_BANK_BYTES != (start + len - 1) / PSUM_BANK_BYTES {
            return Err(shape_error(
                "dst",
                format!(
                    "{dst} spans bytes {start}..{} of each partition, across a {PSUM_BANK_BYTES}-\
                     byte PSUM bank boundary: a matmul writes one bank (at most 512 fp32 per \
                     partition, nki-api §3.2)",
                    start + len
                ),
            ));
        }
        Ok(())
    }

    /// Emits LoadWeights(stationary) and Matmul(moving → dst).
    fn emit_pe(
        &mut self,
        dst: &Tile,
        stationary: &Tile,
        moving: &Tile,
        write: PeWrite,
    ) -> Result<Vec<StepReport>, NkiError> {
        let gen = self.gen();
        let (k, m) = (stationary.partitions(), stationary.free_elements());
        let transpose = u16::from(write == PeWrite::Transpose);
        let s = packed::<3>(gen, stationary, "stationary")?;
        let mut lw = S3Lw {
            src_mem_pattern: s.tensor,
            in_dtype: stationary.dtype,
            fp32_mode: fp32_mode(stationary.dtype),
            ..S3Lw::default()
        };
        let rg = quadrants("stationary", stationary.start_partition, u64::from(k))?;
        let cg = quadrants("dst", dst.start_partition, m)?;
        let _ = lw.ctrl.set(gen, "num_active_rows", k as u16);
        let _ = lw.ctrl.set(gen, "num_active_cols", m as u16);
        let _ = lw.ctrl.set(gen, "row_grp", rg);
        let _ = lw.ctrl.set(gen, "col_grp", 0xF);
        let mv = packed::<3>(gen, moving, "moving")?;
        let d = packed::<3>(gen, dst, "dst")?;
        let mut mm = S3d3Mm {
            src_mem_pattern: mv.tensor,
            in_dtype: moving.dtype,
            fp32_mode: fp32_mode(moving.dtype),
            dst_mem_pattern: d.tensor,
            ..S3d3Mm::default()
        };
        let flags = if write == PeWrite::Accumulate { 2 } else { 3 };
        let _ = mm.ctrl.set(gen, "num_active_rows", k as u16);
        let _ = mm.ctrl.set(gen, "num_active_cols", m as u16);
        let _ = mm.ctrl.set(gen, "psum_accumulate_flags", flags);
        let _ = mm.ctrl.set(gen, "row_grp", rg);
        let _ = mm.ctrl.set(gen, "col_grp", cg);
        if transpose == 1 {
            let _ = lw.ctrl.set(gen, "transpose_mode", 1);
            let _ = mm.ctrl.set(gen, "transpose_mode", 1);
        }
        let loaded = self.emit_instruction(Instruction::build(op::LOAD_WEIGHTS, lw))?;
        let multiplied = self.emit_instruction(Instruction::build(op::MATMUL, mm))?;
        // Another view over these bytes no longer holds a group of its own; the view just
        // written does, unless it holds transposed data.
        let (start, len) = dst.hull();
        let parts = dst.start_partition..dst.start_partition + dst.partitions();
        self.matmul_groups
            .end_overlapping(parts, start, start + len);
        if write != PeWrite::Transpose {
            self.matmul_groups.open(dst);
        }
        Ok(vec![loaded, multiplied])
    }

    /// Ends every accumulation group over `view`'s PSUM bytes: the next matmul into any view
    /// of them (`accumulate=None`) overwrites. A `mod_alloc` block used through another
    /// block index than before is new storage to the kernel (assumption
    /// `mod-alloc-block-groups`).
    pub fn end_matmul_groups_over(&mut self, view: &Tile) {
        if view.space == Space::Psum {
            let (start, len) = view.hull();
            let parts = view.start_partition..view.start_partition + view.partitions();
            self.matmul_groups
                .end_overlapping(parts, start, start + len);
        }
    }

    /// A `k × k` identity of `dtype` in SBUF starting at partition `start` (the diagonal
    /// block `[start..start+k, start..start+k]` of the core's 128 × 128 one), built on
    /// first use with a Memset of 1 and an AffineSelect keeping the diagonal (the
    /// nki-library `shared_identity_matrix` recipe), labelled with the call that needed it.
    fn identity(&mut self, dtype: Dtype, start: u32, k: u32) -> Result<Tile, NkiError> {
        let full = match self.identities.iter().find(|t| t.dtype == dtype) {
            Some(t) => t.clone(),
            None => {
                let n = PE_ROWS as usize;
                let t = self.ndarray_named(&[n, n], dtype, Space::Sbuf, "identity")?;
                // The identity runs on DVE/POOL whatever engine the call asked for.
                let engine = self.take_call_engine();
                let built = self.memset(&t, 1.0, NkiEngine::Unknown).and_then(|_| {
                    self.affine_select(&t, &[[-1, n as i64]], 1, &t, 0.0, Cmp::Equal, 0)
                });
                self.restore_call_engine(engine);
                if let Err(e) = built {
                    self.free(&t);
                    return Err(e);
                }
                self.identities.push(t.clone());
                t
            }
        };
        let rows = Index::Slice {
            start: Some(i64::from(start)),
            stop: Some(i64::from(start + k)),
            step: None,
        };
        Ok(full.index(&[rows, rows])?)
    }
}

/// The lowerings of the calls this module defines ([`crate::call`]); argument positions
/// follow the calls' Python definitions (`python/tpb/nki/isa.py`).
pub(crate) const LOWERINGS: &[crate::Lowering] = {
    use crate::call::Args;
    use crate::Lowering;
    &[
        // nc_matmul(dst, stationary, moving, is_stationary_onezero=False,
        //           is_moving_onezero=False, is_transpose=False, accumulate=None,
        //           tile_position=(), tile_size=(), perf_mode=none, name=None)
        Lowering {
            name: "nc_matmul",
            lower: |c, a: &Args<'_>| {
                // The onezero hints (1, 2) change only speed (isa-facts-pe-act-dma §1.13).
                if !a.ints(7)?.is_empty() || !a.ints(8)?.is_empty() {
                    return Err(NkiError::NotSupported {
                        what: "nc_matmul tile_position / tile_size: how NKI's row and column \
                               tiles map onto row_grp / col_grp and the array's inputs is not \
                               public (isa-facts-pe-act-dma §1.5.8)"
                            .into(),
                    });
                }
                match a.choice_opt(9)? {
                    None | Some("none") => {}
                    Some(mode) => {
                        return Err(NkiError::NotSupported {
                            what: format!(
                                "nc_matmul perf_mode={mode:?}: the PERF_OPT_MODE values and the \
                                 double-row data layout are not public (isa-facts-pe-act-dma \
                                 §1.2, §8 item 2)"
                            ),
                        })
                    }
                }
                let (dst, st, mv) = (a.tile(0)?, a.tile(1)?, a.tile(2)?);
                if a.flag(5)? {
                    c.nc_matmul_transpose(dst, st, mv)
                } else {
                    c.nc_matmul(dst, st, mv, a.flag_opt(6)?)
                }
            },
        },
        // tpb's nl.matmul check (dst, stationary, moving): the operands as nc_matmul takes
        // them, nothing emitted (the Matmul is emitted later, its errors belong here).
        // tpb's own: a mod_alloc PSUM block used through a new block index starts no group
        // a matmul opened through another index (assumption mod-alloc-block-groups).
        Lowering {
            name: "matmul_groups_end",
            lower: |c, a| {
                c.end_matmul_groups_over(a.tile(0)?);
                Ok(Vec::new())
            },
        },
        Lowering {
            name: "nc_matmul_check",
            lower: |c, a| {
                c.check_nc_matmul(a.tile(0)?, a.tile(1)?, a.tile(2)?)?;
                Ok(Vec::new())
            },
        },
        // nc_transpose(dst, data, engine=engine.unknown, name=None)
        Lowering {
            name: "nc_transpose",
            lower: |c, a| c.nc_transpose_any(a.tile(0)?, a.tile(1)?, a.engine(2)?),
        },
    ]
};
