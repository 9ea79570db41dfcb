//! The NKI calls on the activation engine (issue 18 items 4–5; NKI 0.6.0 signatures,
//! `docs/reference/nki-calls.md`): `activation` and `activation_reduce` (Activate 0x21 on ACT,
//! then ActivationReadAccumulator 0x24 when `reduce_res` is given) and `exponential`
//! (Exponential 0x30 on DVE, mariana and later).
//!
//! Emission choices (the compiler's are not all public, isa-facts-pe-act-dma §2.2–§2.3):
//! the scale is always written (`scale_src` = instruction with an explicit fp32, or a
//! pointer to a `(P, 1)` fp32 tile); `imm` is the instruction's 0.0; `reduce_cmd=idle` is
//! written as IDLE (the compiler writes ZERO_ACCUMULATE for its Idle, which would clear the
//! registers NKI says `idle` leaves alone).

use crate::build::{packed, Scalar};
use crate::core::{fp32, same_partitions, scalar, Core};
use crate::dve::drain;
use crate::error::NkiError;
use crate::tile::Tile;
use crate::{Operand, ReduceCmd};
use tpb_isa::wire::{op, DtypePair, ImmVal, S3d3Ac, S3d3Ts};
use tpb_isa::{AccumCmd, ActFunc, AluOp, Dtype, Gen, ImmSrc, ImmSrcN, Instruction, RevOps};
use tpb_sim::StepReport;

/// The bias operand of Activate: `bias_src_n` (IMM_SRC_N: pointer 0, instruction 1), the
/// 4 bytes, and the bias dtype (the high nibble of `in_bias_dtype`).
fn bias_operand(
    gen: Gen,
    bias: Option<&Operand>,
    data: &Tile,
) -> Result<(ImmSrcN, ImmVal, Dtype), NkiError> {
    match bias {
        None => Ok((ImmSrcN::INSTRUCTION, ImmVal(0), Dtype::FP32)),
        Some(Operand::Imm(v)) => Ok((
            ImmSrcN::INSTRUCTION,
            ImmVal(fp32("bias", *v)?.to_bits()),
            Dtype::FP32,
        )),
        Some(Operand::Bits(b)) => Ok((ImmSrcN::INSTRUCTION, ImmVal(*b), Dtype::FP32)),
        Some(t @ Operand::Tile(tile)) => {
            // NKI: a [N, 1] vector of any dtype but tf32 (which no tile dtype is), read in
            // its own dtype (§2.2). The bitvec path of `scalar` checks the partitions and builds the pointer
            // without requiring fp32.
            let s = scalar(gen, Some(t), true, "bias", data)?;
            Ok((ImmSrcN::POINTER, s.imm, tile.dtype))
        }
    }
}

/// Activate 0x21: `dst = func(data · scale + bias)` with the accumulator command `cmd`.
fn activate(
    gen: Gen,
    dst: &Tile,
    func: ActFunc,
    data: &Tile,
    bias: (ImmSrcN, ImmVal, Dtype),
    scale: Scalar,
    cmd: AccumCmd,
) -> Result<Instruction, NkiError> {
    // `in_bias_dtype` holds each dtype in a nibble: no silent truncation of a larger code.
    for (operand, dtype) in [("data", data.dtype), ("bias", bias.2)] {
        if dtype.0 > 0xF {
            return Err(NkiError::Shape {
                operand,
                detail: format!("{dtype} has no code Activate's 4-bit dtype nibble can hold"),
            });
        }
    }
    let s = packed::<3>(gen, data, "data")?;
    let d = packed::<3>(gen, dst, "dst")?;
    let body = S3d3Ac {
        imm_src: ImmSrc::INSTRUCTION,
        scale_src: scale.src,
        accumulator_cmd: cmd,
        bias_src_n: bias.0,
        src_mem_pattern: s.tensor,
        in_bias_dtype: DtypePair::new(data.dtype, bias.2),
        out_dtype: dst.dtype,
        num_active_channels: d.num_active_channels,
        activation_func: func,
        scale_value: scale.imm,
        bias: bias.1,
        imm: ImmVal(0),
        dst_mem_pattern: d.tensor,
    };
    Ok(Instruction::build(op::ACTIVATE, body))
}

impl Core {
    /// `nki.isa.activation(dst, op, data, bias=None, scale=1.0, reduce_op=None,
    /// reduce_res=None, reduce_cmd=idle)`: `dst = op(data · scale + bias)` per element in
    /// fp32 (one fused multiply-add, then the function), converted to dst's dtype. `scale` is
    /// an fp32 number or a `(P, 1)` fp32 tile; `bias` a number or a `(P, 1)` tile of any dtype
    /// but tf32. The ACT accumulator (one fp32 per lane) follows `reduce_cmd` (`reset` zeroes
    /// it, `reduce` adds the row sums of the outputs, `reset_reduce` both, `idle` leaves
    /// it); with `reduce_res` an ActivationReadAccumulator 0x24 writes it to that `(P, 1)`
    /// tile. `reduce_op` must be add (or `None`). Functions the hardware evaluates from its
    /// unpublished tables are computed from their definition and labelled approximate in
    /// the report (`Config::strict_exact` makes that a fault).
    #[allow(clippy::too_many_arguments)]
    pub fn activation(
        &mut self,
        dst: &Tile,
        func: ActFunc,
        data: &Tile,
        bias: Option<&Operand>,
        scale: &Operand,
        reduce_op: Option<AluOp>,
        reduce_res: Option<&Tile>,
        reduce_cmd: ReduceCmd,
    ) -> Result<Vec<StepReport>, NkiError> {
        same_partitions(dst, data, "data")?;
        if let Some(o) = reduce_op.filter(|&o| o != AluOp::ADD) {
            return Err(NkiError::Operator {
                argument: "reduce_op",
                detail: format!("{o}: the activation accumulator adds only (NKI: nl.add)"),
            });
        }
        if reduce_cmd == ReduceCmd::LoadReduce {
            return Err(NkiError::NotSupported {
                what: "activation reduce_cmd=load_reduce: NKI's activation has no initial \
                       value argument, and which Activate field carries it is not public \
                       (isa-facts-pe-act-dma §2.3)"
                    .into(),
            });
        }
        if let Some(r) = reduce_res {
            same_partitions(r, data, "reduce_res")?;
        }
        let gen = self.gen();
        if gen == Gen::Sunda && matches!(bias, Some(Operand::Imm(v)) if *v != 0.0) {
            return Err(NkiError::Value {
                argument: "bias",
                detail: "a scalar bias needs NeuronCore-v3 or later; on v2 (sunda) NKI takes \
                         a (P, 1) vector (nki-api §3.3)"
                    .into(),
            });
        }
        let scale = scalar(gen, Some(scale), false, "scale", data)?;
        let bias = bias_operand(gen, bias, data)?;
        let main = activate(gen, dst, func, data, bias, scale, reduce_cmd.accum_cmd())?;
        let read = match reduce_res {
            Some(r) => Some(drain(self, r, false, op::ACTIVATION_READ_ACCUMULATOR)?),
            None => None,
        };
        self.emit_with_drain(main, read)
    }

    /// `nki.isa.activation_reduce(dst, op, data, reduce_op, reduce_res, bias=None,
    /// scale=1.0)`: [`Core::activation`] with `reduce_cmd=reset_reduce` and the row sums
    /// written to `reduce_res`.
    #[allow(clippy::too_many_arguments)]
    pub fn activation_reduce(
        &mut self,
        dst: &Tile,
        func: ActFunc,
        data: &Tile,
        reduce_op: Option<AluOp>,
        reduce_res: &Tile,
        bias: Option<&Operand>,
        scale: &Operand,
    ) -> Result<Vec<StepReport>, NkiError> {
        self.activation(
            dst,
            func,
            data,
            bias,
            scale,
            reduce_op,
            Some(reduce_res),
            ReduceCmd::ResetReduce,
        )
    }

    /// `nki.isa.exponential(dst, src, max_value=0.0, reduce_res=None, reduce_cmd=idle,
    /// reduce_init=0.0)`: `dst = exp(src − max_value)` on the Vector engine (Exponential
    /// 0x30; mariana and later), `max_value` an fp32 number or a `(P, 1)` fp32 tile.
    /// Approximate as the ACT table functions are. The running sum of the fp32 outputs goes
    /// to the DVE lane accumulator (`reset_reduce` from 0, `reduce` continuing, `load_reduce`
    /// from `reduce_init`; isa-facts-pe-act-dma §2.12, assumption `exp-operands`) and, with
    /// `reduce_res`, through a DveReadAccumulator 0x9b into that `(P, 1)` tile.
    #[allow(clippy::too_many_arguments)]
    pub fn exponential(
        &mut self,
        dst: &Tile,
        src: &Tile,
        max_value: &Operand,
        reduce_cmd: ReduceCmd,
        reduce_res: Option<&Tile>,
        reduce_init: Option<&Operand>,
    ) -> Result<Vec<StepReport>, NkiError> {
        let gen = self.gen();
        if matches!(gen, Gen::Sunda | Gen::Cayman) {
            return Err(NkiError::NotSupported {
                what: format!(
                    "exponential on {gen}: Exponential 0x30 is wired in the firmware from \
                     mariana (NeuronCore-v4) only (isa-facts-pe-act-dma §2.12, decision 18); \
                     use activation(op=exp)"
                ),
            });
        }
        if reduce_init.is_some() && reduce_cmd != ReduceCmd::LoadReduce {
            return Err(NkiError::Value {
                argument: "reduce_init",
                detail: "given without reduce_cmd=load_reduce (the ISA requires imm1 = 0 \
                         otherwise, §2.12)"
                    .into(),
            });
        }
        same_partitions(dst, src, "src")?;
        let m = scalar(gen, Some(max_value), false, "max_value", src)?;
        let init = match reduce_cmd {
            ReduceCmd::LoadReduce => scalar(
                gen,
                Some(reduce_init.unwrap_or(&Operand::Imm(0.0))),
                false,
                "reduce_init",
                src,
            )?,
            _ => Scalar::ZERO,
        };
        let s = packed::<3>(gen, src, "src")?;
        let d = packed::<3>(gen, dst, "dst")?;
        let body = S3d3Ts {
            src_mem_pattern: s.tensor,
            in_dtype: src.dtype,
            out_dtype: dst.dtype,
            num_active_channels: d.num_active_channels,
            imm0_src: m.src,
            op0: AluOp::BYPASS,
            op1: AluOp::BYPASS,
            reverse_operands: RevOps(0),
            imm1_src: init.src,
            imm0: m.imm,
            imm1: init.imm,
            dst_mem_pattern: d.tensor,
            accumulator_cmd: reduce_cmd.accum_cmd(),
            ..S3d3Ts::default()
        };
        let read = match reduce_res {
            Some(r) => {
                same_partitions(r, src, "reduce_res")?;
                Some(crate::dve::read_accumulator(self, r, false)?)
            }
            None => None,
        };
        self.emit_with_drain(Instruction::build(op::EXPONENTIAL, body), read)
    }
}

/// The lowerings of the calls this module defines ([`crate::call`]); argument positions
/// follow the calls' Python definitions (`python/tpb/nki/isa.py`).
pub(crate) const LOWERINGS: &[crate::Lowering] = {
    use crate::call::Args;
    use crate::Lowering;
    &[
        // activation(dst, op, data, bias=None, scale=1.0, reduce_op=None, reduce_res=None,
        //            reduce_cmd=idle, engine=engine.unknown, name=None)
        Lowering {
            name: "activation",
            lower: |c, a: &Args<'_>| {
                c.activation(
                    a.tile(0)?,
                    a.act(1)?,
                    a.tile(2)?,
                    a.operand_opt(3)?,
                    a.operand(4)?,
                    a.alu_opt(5)?,
                    a.tile_opt(6)?,
                    a.reduce_cmd(7)?,
                )
            },
        },
        // activation_reduce(dst, op, data, reduce_op, reduce_res, bias=None, scale=1.0,
        //                   name=None)
        Lowering {
            name: "activation_reduce",
            lower: |c, a| {
                c.activation_reduce(
                    a.tile(0)?,
                    a.act(1)?,
                    a.tile(2)?,
                    a.alu_opt(3)?,
                    a.tile(4)?,
                    a.operand_opt(5)?,
                    a.operand(6)?,
                )
            },
        },
        // exponential(dst, src, max_value=0.0, reduce_res=None, reduce_cmd=idle,
        //             reduce_init=0.0, name=None)
        Lowering {
            name: "exponential",
            lower: |c, a| {
                let cmd = a.reduce_cmd(4)?;
                // NKI's default reduce_init=0.0 is "not given" unless load_reduce reads it.
                let init = match a.operand_opt(5)? {
                    Some(Operand::Imm(v)) if *v == 0.0 && cmd != ReduceCmd::LoadReduce => None,
                    other => other,
                };
                c.exponential(
                    a.tile(0)?,
                    a.tile(1)?,
                    a.operand(2)?,
                    cmd,
                    a.tile_opt(3)?,
                    init,
                )
            },
        },
    ]
};
