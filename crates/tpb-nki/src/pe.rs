//! `nki.isa.nc_matmul` on the PE: one LoadWeights 0x01 (LoadStationary) then one Matmul 0x02
//! (MultiplyMoving), as NKI lowers it (isa-facts-pe-act-dma §1.1–§1.2).

use crate::build::packed;
use crate::core::{Core, NkiError};
use crate::tile::Tile;
use tpb_isa::wire::{op, S3Lw, S3d3Mm};
use tpb_isa::{Dtype, Gen, Instruction, PeFp32Mode};
use tpb_sim::StepReport;

impl Core {
    /// `nki.isa.nc_matmul(dst, stationary, moving, accumulate=None)`:
    /// `dst = stationary.T @ moving` into PSUM. The contraction is the partition dimension of
    /// both inputs (≤ 128); the stationary free size (≤ 128) becomes dst's partitions and the
    /// moving free size dst's free size. `accumulate=True` adds to dst (psum flags 2, a group
    /// that accumulates and closes); `None`/`False` overwrites (flags 3). The result is exact
    /// per tpb's documented order (products rounded once to fp32, summed sequentially over
    /// the contraction), not the hardware's bits. fp32 inputs run as `fp32_mode = high`.
    pub fn nc_matmul(
        &mut self,
        dst: &Tile,
        stationary: &Tile,
        moving: &Tile,
        accumulate: Option<bool>,
    ) -> Result<StepReport, NkiError> {
        let gen = self.gen();
        if gen == Gen::Maverick {
            return Err(NkiError::Shape {
                operand: "dst",
                detail: "nc_matmul on maverick: the v5 PSUM geometry is not public".into(),
            });
        }
        let (k, m) = (stationary.partitions(), stationary.free_elements());
        if moving.partitions() != k || k == 0 || k > 128 || m == 0 || m > 128 {
            return Err(NkiError::Shape {
                operand: "stationary",
                detail: format!(
                    "stationary ({k} × {m}) and moving ({} partitions) must share a partition \
                     size ≤ 128, and the stationary free size must be 1..=128",
                    moving.partitions()
                ),
            });
        }
        let mode = |d: Dtype| {
            if d == Dtype::FP32 {
                PeFp32Mode::HIGH
            } else {
                PeFp32Mode::NONE
            }
        };
        let s = packed::<3>(gen, stationary, "stationary")?;
        let mut lw = S3Lw {
            src_mem_pattern: s.tensor,
            in_dtype: stationary.dtype,
            fp32_mode: mode(stationary.dtype),
            ..S3Lw::default()
        };
        let quadrant = |n: u64| -> u16 {
            match n {
                0..=32 => 0x1,
                33..=64 => 0x3,
                _ => 0xF,
            }
        };
        let (rg, cg) = (quadrant(u64::from(k)), quadrant(m));
        let _ = lw.ctrl.set(gen, "num_active_rows", k as u16);
        let _ = lw.ctrl.set(gen, "num_active_cols", m as u16);
        let _ = lw.ctrl.set(gen, "row_grp", rg);
        let _ = lw.ctrl.set(gen, "col_grp", 0xF);
        let mv = packed::<3>(gen, moving, "moving")?;
        let d = packed::<3>(gen, dst, "dst")?;
        let mut mm = S3d3Mm {
            src_mem_pattern: mv.tensor,
            in_dtype: moving.dtype,
            fp32_mode: mode(moving.dtype),
            dst_mem_pattern: d.tensor,
            ..S3d3Mm::default()
        };
        let flags = if accumulate == Some(true) { 2 } else { 3 };
        let _ = mm.ctrl.set(gen, "num_active_rows", k as u16);
        let _ = mm.ctrl.set(gen, "num_active_cols", m as u16);
        let _ = mm.ctrl.set(gen, "psum_accumulate_flags", flags);
        let _ = mm.ctrl.set(gen, "row_grp", rg);
        let _ = mm
            .ctrl
            .set(gen, "col_grp", if cg == 0xF { 0xF } else { cg });
        self.emit_instruction(Instruction::build(op::LOAD_WEIGHTS, lw))?;
        self.emit_instruction(Instruction::build(op::MATMUL, mm))
    }
}
