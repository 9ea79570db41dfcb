//! The NKI calls on the DVE per-lane state instructions (issue 17b; signatures of NKI 0.6.0,
//! `docs/reference/nki-calls.md`): `scalar_tensor_tensor`, `tensor_tensor_scan`,
//! `select_reduce` (0xea, then a 0x9b drain when `reduce_res` is given).

use crate::build::{packed, Scalar};
use crate::core::{fp32, same_partitions, scalar, Core};
use crate::error::NkiError;
use crate::tile::Tile;
use crate::{Operand, ReduceCmd};
use tpb_isa::geometry::Geometry;
use tpb_isa::validate::{is_valid, validate};
use tpb_isa::wire::D1Rd;
use tpb_isa::wire::{
    op, Addr4, D4Mr, DtypePair, F32Bits, ImmVal, S2Bn, S2s2d2Stt, S3d3Ts, S4d2Bn, S4d4Mr, Tensor,
    Tensor1,
};
use tpb_isa::{AccumCmd, AluOp, Dtype, ImmSrc, Instruction, RevOps};
use tpb_sim::StepReport;

/// The scalar of an STT-family instruction and its dtype: an inline fp32, or a `(P, 1)`
/// tile read through a pointer in the tile's dtype.
fn stt_scalar(
    core: &Core,
    operand: &Operand,
    bitvec: bool,
    out: Dtype,
    argument: &'static str,
    data: &Tile,
) -> Result<(Scalar, Dtype), NkiError> {
    let s = scalar(core.gen(), Some(operand), bitvec, argument, data)?;
    let dtype = match operand {
        Operand::Tile(t) => t.dtype,
        _ if bitvec => out,
        _ => Dtype::FP32,
    };
    Ok((s, dtype))
}

/// Builds an `S2S2D2_STT` body over `src0`, `src1` and `dst`.
#[allow(clippy::too_many_arguments)]
fn stt_body(
    core: &Core,
    dst: &Tile,
    src0: (&Tile, &'static str),
    src1: (&Tile, &'static str),
    ops: (AluOp, AluOp),
    reverse: RevOps,
    imm0: (Scalar, Dtype),
    cmd: AccumCmd,
) -> Result<S2s2d2Stt, NkiError> {
    let gen = core.gen();
    let a = packed::<2>(gen, src0.0, src0.1)?;
    let b = packed::<2>(gen, src1.0, src1.1)?;
    let d = packed::<2>(gen, dst, "dst")?;
    Ok(S2s2d2Stt {
        src0_mem_pattern: a.tensor,
        src1_mem_pattern: b.tensor,
        op0: ops.0,
        op1: ops.1,
        reverse_operands: reverse,
        imm0_src: imm0.0.src,
        in0_in1_dtype: DtypePair::new(src0.0.dtype, src1.0.dtype),
        out_dtype: dst.dtype,
        num_active_channels: d.num_active_channels,
        imm0_dtype: imm0.1,
        accumulator_cmd: cmd,
        dst_mem_pattern: d.tensor,
        imm0: imm0.0.imm,
        ..S2s2d2Stt::default()
    })
}

fn rev(r0: bool, r1: bool) -> RevOps {
    RevOps(u8::from(r0) | (u8::from(r1) << 1))
}

/// DveReadAccumulator (0x9b): each lane's accumulator into the single element of that
/// lane's `(P, 1)` destination, optionally negated (isa-facts-dve-pool §13.1).
pub(crate) fn read_accumulator(
    core: &Core,
    dst: &Tile,
    negate: bool,
) -> Result<Instruction, NkiError> {
    drain(core, dst, negate, op::DVE_READ_ACCUMULATOR)
}

/// A `D1_RD` accumulator drain (DVE 0x9b or ACT 0x24, isa-facts-pe-act-dma §2.5): each
/// lane's accumulator into the single element of that lane's `(P, 1)` `dst`.
pub(crate) fn drain(
    core: &Core,
    dst: &Tile,
    negate: bool,
    opcode: tpb_isa::wire::TypedOpcode<D1Rd>,
) -> Result<Instruction, NkiError> {
    if dst.free_elements() != 1 {
        return Err(NkiError::Shape {
            operand: "reduce_res",
            detail: format!("must have shape (P, 1), not {:?}", dst.shape),
        });
    }
    let d = packed::<1>(core.gen(), dst, "reduce_res")?;
    let body = D1Rd {
        dst_element_count: 1,
        dtype: dst.dtype,
        negated: u8::from(negate),
        num_active_channels: d.num_active_channels,
        dst_mem_pattern: Tensor1 {
            start_addr: d.tensor.start_addr,
            step_elem: [1],
            num_elem: [1],
        },
        ..D1Rd::default()
    };
    Ok(Instruction::build(opcode, body))
}

impl Core {
    /// Runs `main`, then `drain` if given (see [`Core::emit_all`]).
    pub(crate) fn emit_with_drain(
        &mut self,
        main: Instruction,
        drain: Option<Instruction>,
    ) -> Result<Vec<StepReport>, NkiError> {
        let mut all = vec![main];
        all.extend(drain);
        self.emit_all(all)
    }

    /// Runs several instructions of one call, checking first that every one validates, so
    /// that an invalid later one leaves nothing emitted.
    pub(crate) fn emit_all(
        &mut self,
        insts: Vec<Instruction>,
    ) -> Result<Vec<StepReport>, NkiError> {
        let gen = self.gen();
        for i in &insts {
            if !is_valid(i, gen) {
                let mnemonic = i.info(gen).map_or("unknown", |r| r.mnemonic);
                return Err(NkiError::Invalid {
                    mnemonic: mnemonic.into(),
                    inst: Box::new(*i),
                    report: validate(i, gen),
                });
            }
        }
        insts
            .into_iter()
            .map(|i| self.emit_instruction(i))
            .collect()
    }

    /// `nki.isa.scalar_tensor_tensor(dst, data, op0, operand0, op1, operand1, reverse0=False,
    /// reverse1=False)`: `dst = (data op0 operand0) op1 operand1` (ScalarTensorTensor 0x9d;
    /// both ops bitvec ⇒ 0x9e). `operand0` is an fp32 immediate or a `(P, 1)` tile,
    /// `operand1` a tile of data's shape; `reverseN` swaps stage N's operands.
    #[allow(clippy::too_many_arguments)]
    pub fn scalar_tensor_tensor(
        &mut self,
        dst: &Tile,
        data: &Tile,
        op0: AluOp,
        operand0: &Operand,
        op1: AluOp,
        operand1: &Tile,
        reverse0: bool,
        reverse1: bool,
    ) -> Result<StepReport, NkiError> {
        same_partitions(dst, data, "data")?;
        same_partitions(dst, operand1, "operand1")?;
        crate::core::not_both_psum((data, "data"), (operand1, "operand1"))?;
        let bitvec = op0.is_bitvec_op() && op1.is_bitvec_op() && op0 != AluOp::BYPASS;
        let imm0 = stt_scalar(self, operand0, bitvec, dst.dtype, "operand0", data)?;
        let body = stt_body(
            self,
            dst,
            (data, "data"),
            (operand1, "operand1"),
            (op0, op1),
            rev(reverse0, reverse1),
            imm0,
            AccumCmd::IDLE,
        )?;
        let opcode = if bitvec {
            op::SCALAR_TENSOR_TENSOR_BITVEC
        } else {
            op::SCALAR_TENSOR_TENSOR_ARITH
        };
        self.emit_instruction(Instruction::build(opcode, body))
    }

    /// `nki.isa.tensor_tensor_scan(dst, data0, data1, initial, op0, op1, reverse0=False,
    /// reverse1=False)`: per partition `r[i] = op1(op0(data0[i], r[i-1]), data1[i])` from
    /// `r[-1] = initial`, `dst[i] = r[i]` (TensorTensorScan 0xe5; assumption
    /// `scan-recurrence`).
    #[allow(clippy::too_many_arguments)]
    pub fn tensor_tensor_scan(
        &mut self,
        dst: &Tile,
        data0: &Tile,
        data1: &Tile,
        initial: &Operand,
        op0: AluOp,
        op1: AluOp,
        reverse0: bool,
        reverse1: bool,
    ) -> Result<StepReport, NkiError> {
        same_partitions(dst, data0, "data0")?;
        same_partitions(dst, data1, "data1")?;
        let imm0 = stt_scalar(self, initial, false, dst.dtype, "initial", data0)?;
        let body = stt_body(
            self,
            dst,
            (data0, "data0"),
            (data1, "data1"),
            (op0, op1),
            rev(reverse0, reverse1),
            imm0,
            AccumCmd::IDLE,
        )?;
        self.emit_instruction(Instruction::build(op::TENSOR_TENSOR_SCAN_ARITH, body))
    }

    /// `nki.isa.select_reduce(dst, predicate, on_true, on_false, reduce_res=None,
    /// reduce_cmd=idle, reduce_op=maximum, reverse_pred=False)`: `dst = where(predicate,
    /// on_true, on_false)` with the running max of the selected values in the DVE
    /// accumulator (SelectReduce 0xea with the false-fill, assumption
    /// `select-reduce-model`); `reduce_res` `(P, 1)` gets the accumulator through a
    /// DveReadAccumulator (0x9b). `reverse_pred` has no known encoding and is refused.
    #[allow(clippy::too_many_arguments)]
    pub fn select_reduce(
        &mut self,
        dst: &Tile,
        predicate: &Tile,
        on_true: &Tile,
        on_false: &Operand,
        reduce_res: Option<&Tile>,
        reduce_cmd: ReduceCmd,
        reduce_op: AluOp,
        reverse_pred: bool,
    ) -> Result<Vec<StepReport>, NkiError> {
        if reverse_pred {
            return Err(NkiError::NotSupported {
                what: "select_reduce reverse_pred=True: SelectReduce (0xea) has no known \
                       encoding of a negated predicate (isa-facts-dve-pool Q18)"
                    .into(),
            });
        }
        if reduce_op != AluOp::MAX {
            return Err(NkiError::Operator {
                argument: "reduce_op",
                detail: format!("{reduce_op}: SelectReduce reduces with maximum only"),
            });
        }
        let cmd = match reduce_cmd {
            ReduceCmd::Idle | ReduceCmd::Reduce | ReduceCmd::ResetReduce => reduce_cmd.accum_cmd(),
            other => {
                return Err(NkiError::NotSupported {
                    what: format!(
                        "select_reduce reduce_cmd={other:?}: SelectReduce accepts idle, reduce \
                         and reset_reduce (has_valid_s2s2d2_cpr_accum_cmd)"
                    ),
                })
            }
        };
        same_partitions(dst, predicate, "predicate")?;
        same_partitions(dst, on_true, "on_true")?;
        let fill = match on_false {
            Operand::Imm(v) => (
                Scalar {
                    src: ImmSrc::INSTRUCTION,
                    imm: ImmVal(fp32("on_false", *v)?.to_bits()),
                },
                Dtype::FP32,
            ),
            other => stt_scalar(self, other, false, dst.dtype, "on_false", on_true)?,
        };
        let body = stt_body(
            self,
            dst,
            (predicate, "predicate"),
            (on_true, "on_true"),
            (AluOp::BYPASS, AluOp::MAX),
            RevOps::FIRST,
            fill,
            cmd,
        )?;
        let main = Instruction::build(op::SELECT_REDUCE, body);
        let drain = match reduce_res {
            Some(r) => {
                same_partitions(dst, r, "reduce_res")?;
                Some(read_accumulator(self, r, false)?)
            }
            None => None,
        };
        self.emit_with_drain(main, drain)
    }

    /// `nki.isa.tensor_scalar_reduce(dst, data, op0, operand0, reduce_op, reduce_res=None,
    /// reverse0=False, reduce_cmd=reset_reduce, reduce_init=None, reduce_res_negate=False)`:
    /// `dst = data op0 operand0` with `reduce_op` folding the results into the DVE
    /// accumulator (TensorScalarCacheReduce 0x9a, §0.2 decision 9), then, when `reduce_res`
    /// is given, a DveReadAccumulator (0x9b) into it (negated with `reduce_res_negate`).
    /// `reset_reduce` seeds reduce_op's identity, `reduce` continues, `load_reduce` seeds
    /// `reduce_init`.
    #[allow(clippy::too_many_arguments)]
    pub fn tensor_scalar_reduce(
        &mut self,
        dst: &Tile,
        data: &Tile,
        op0: AluOp,
        operand0: &Operand,
        reduce_op: AluOp,
        reduce_res: Option<&Tile>,
        reverse0: bool,
        reduce_cmd: ReduceCmd,
        reduce_init: Option<&Operand>,
        reduce_res_negate: bool,
    ) -> Result<Vec<StepReport>, NkiError> {
        if reverse0 {
            return Err(NkiError::NotSupported {
                what: "tensor_scalar_reduce reverse0=True: TensorScalarCacheReduce requires \
                       reverse_operands == None (isa-facts-dve-pool §12.3; NKI documents \
                       reverse0 as not yet supported)"
                    .into(),
            });
        }
        let cmd = cache_accum_cmd("tensor_scalar_reduce", reduce_cmd)?;
        same_partitions(dst, data, "data")?;
        let fp32_scalar = |core: &Core, o: &Operand, argument: &'static str| {
            if let Operand::Tile(t) = o {
                if t.dtype != Dtype::FP32 {
                    return Err(NkiError::Value {
                        argument,
                        detail: format!("a (P, 1) scalar tile must be float32, not {}", t.dtype),
                    });
                }
            }
            scalar(core.gen(), Some(o), false, argument, data)
        };
        let s0 = fp32_scalar(self, operand0, "operand0")?;
        let s1 = match (cmd, reduce_init) {
            (AccumCmd::LOAD_ACCUMULATE, Some(o)) => fp32_scalar(self, o, "reduce_init")?,
            (AccumCmd::LOAD_ACCUMULATE, None) => {
                return Err(NkiError::Value {
                    argument: "reduce_init",
                    detail: "required with reduce_cmd=load_reduce".into(),
                })
            }
            _ => Scalar::ZERO,
        };
        let gen = self.gen();
        let body = cache_op(gen, cmd, dst, (data, "data"), [op0, reduce_op], [s0, s1])?;
        let main = Instruction::build(op::TENSOR_SCALAR_CACHE_REDUCE, body);
        let drain = match reduce_res {
            Some(r) => {
                same_partitions(dst, r, "reduce_res")?;
                Some(read_accumulator(self, r, reduce_res_negate)?)
            }
            None => None,
        };
        self.emit_with_drain(main, drain)
    }

    /// `nki.isa.tensor_scalar_cumulative(dst, src, op0, op1, imm0, imm1=None,
    /// reduce_cmd=reset_reduce)`: a running scan along each partition's free elements,
    /// `reg = op1(op0(src[i], imm0), reg); dst[i] = reg`, in fp32 on the Vector engine's
    /// per-partition accumulator (TensorScalarCacheCumulative 0xe6, isa-facts-dve-pool §12;
    /// assumption `cache-reduce-model`). `reset_reduce` seeds op1's identity (0 add/subtract,
    /// 1 multiply, -inf max, +inf min), `load_reduce` seeds `imm1`, `reduce` continues what
    /// the accumulator holds. `op1` ∈ add, subtract, multiply, max, min; `op0` an arithmetic
    /// op; `imm0`/`imm1` fp32 immediates or `(P, 1)` float32 tiles; no 32-bit integer I/O.
    #[allow(clippy::too_many_arguments)]
    pub fn tensor_scalar_cumulative(
        &mut self,
        dst: &Tile,
        src: &Tile,
        op0: AluOp,
        op1: AluOp,
        imm0: &Operand,
        imm1: Option<&Operand>,
        reduce_cmd: ReduceCmd,
    ) -> Result<StepReport, NkiError> {
        let cmd = cache_accum_cmd("tensor_scalar_cumulative", reduce_cmd)?;
        if !matches!(
            op1,
            AluOp::ADD | AluOp::SUBTRACT | AluOp::MULT | AluOp::MAX | AluOp::MIN
        ) {
            return Err(NkiError::Value {
                argument: "op1",
                detail: format!(
                    "{op1:?}: the running op must be add, subtract, multiply, maximum or \
                     minimum (is_valid_cache_reduce_op, isa-facts-dve-pool §12.3)"
                ),
            });
        }
        for (t, argument) in [(src, "src"), (dst, "dst")] {
            if matches!(t.dtype, Dtype::INT32 | Dtype::UINT32) {
                return Err(NkiError::Value {
                    argument,
                    detail: format!(
                        "{}: tensor_scalar_cumulative has no 32-bit integer I/O (NKI: \
                         \"ISA limitation\"); use float32 or a 8/16-bit integer",
                        t.dtype
                    ),
                });
            }
        }
        same_partitions(dst, src, "src")?;
        if dst.free_elements() != src.free_elements() {
            return Err(NkiError::Shape {
                operand: "src",
                detail: format!(
                    "shape {:?}, but dst is {:?}: one output per input element",
                    src.shape, dst.shape
                ),
            });
        }
        let gen = self.gen();
        let s0 = scalar(gen, Some(imm0), false, "imm0", src)?;
        let s1 = match (cmd, imm1) {
            (AccumCmd::LOAD_ACCUMULATE, Some(o)) => scalar(gen, Some(o), false, "imm1", src)?,
            (AccumCmd::LOAD_ACCUMULATE, None) => {
                return Err(NkiError::Value {
                    argument: "imm1",
                    detail: "required with reduce_cmd=load_reduce (the seed)".into(),
                })
            }
            (_, Some(_)) => {
                return Err(NkiError::Value {
                    argument: "imm1",
                    detail: "used only with reduce_cmd=load_reduce (the ISA requires it to be \
                             0 otherwise, isa-facts-dve-pool §12.3)"
                        .into(),
                })
            }
            (_, None) => Scalar::ZERO,
        };
        let body = cache_op(gen, cmd, dst, (src, "src"), [op0, op1], [s0, s1])?;
        self.emit_instruction(Instruction::build(op::TENSOR_SCALAR_CACHE_CUMULATIVE, body))
    }

    /// `nki.isa.max8(dst, src)`: the 8 largest values of each partition of `src` (fp32
    /// compare), descending, into the `(P, 8)` dst (Max8 0x6c writes them ascending; the
    /// call reverses the destination, assumption `search-nki-order`).
    pub fn max8(&mut self, dst: &Tile, src: &Tile) -> Result<StepReport, NkiError> {
        same_partitions(dst, src, "src")?;
        let gen = self.gen();
        let s = packed::<4>(gen, src, "src")?;
        let body = S4d2Bn {
            src_mem_pattern: s.tensor,
            in_dtype: src.dtype,
            out_dtype: dst.dtype,
            num_active_channels: s.num_active_channels,
            dst_mem_pattern: reversed8::<2>(gen, dst, "dst")?,
            ..S4d2Bn::default()
        };
        self.emit_instruction(Instruction::build(op::MAX8, body))
    }

    /// `nki.isa.nc_find_index8(dst, data, vals)`: for each of the 8 `vals` of a partition,
    /// the index of its first occurrence in `data` (all ones when absent), into the `(P, 8)`
    /// uint16/uint32 dst. Emits MatchValueLoad (0x6d) then FindIndex8 (0x6e).
    pub fn nc_find_index8(
        &mut self,
        dst: &Tile,
        data: &Tile,
        vals: &Tile,
    ) -> Result<Vec<StepReport>, NkiError> {
        same_partitions(dst, data, "data")?;
        let gen = self.gen();
        let load = match_value_load(gen, vals)?;
        let s = packed::<4>(gen, data, "data")?;
        let body = S4d2Bn {
            src_mem_pattern: s.tensor,
            in_dtype: data.dtype,
            out_dtype: dst.dtype,
            num_active_channels: s.num_active_channels,
            dst_mem_pattern: slots8::<2>(gen, dst, "dst")?,
            ..S4d2Bn::default()
        };
        self.emit_all(vec![load, Instruction::build(op::FIND_INDEX8, body)])
    }

    /// `nki.isa.nc_match_replace8(dst, data, vals, imm, dst_idx=None)`: `data` copied to
    /// `dst` with the first occurrence of each of the 8 `vals` replaced by `imm` (fp32);
    /// `dst_idx` `(P, 8)` gets the matched positions. Emits MatchValueLoad (0x6d),
    /// MatchReplace8 (0x6f) and, for `dst_idx`, DveReadIndices (0xe9, cayman and later).
    pub fn nc_match_replace8(
        &mut self,
        dst: &Tile,
        data: &Tile,
        vals: &Tile,
        imm: f64,
        dst_idx: Option<&Tile>,
    ) -> Result<Vec<StepReport>, NkiError> {
        same_partitions(dst, data, "data")?;
        let gen = self.gen();
        let load = match_value_load(gen, vals)?;
        let s = packed::<4>(gen, data, "data")?;
        let d = packed::<4>(gen, dst, "dst")?;
        let body = S4d4Mr {
            src_mem_pattern: s.tensor,
            in_dtype: data.dtype,
            out_dtype: dst.dtype,
            num_active_channels: s.num_active_channels,
            immediate: F32Bits(fp32("imm", imm)?.to_bits()),
            dst_mem_pattern: d.tensor,
            ..S4d4Mr::default()
        };
        let mut insts = vec![load, Instruction::build(op::MATCH_REPLACE8, body)];
        if let Some(t) = dst_idx {
            same_partitions(dst, t, "dst_idx")?;
            if op::DVE_READ_INDICES.opcode().info(gen).is_none() {
                return Err(NkiError::NotSupported {
                    what: format!(
                        "nc_match_replace8 dst_idx: DveReadIndices (0xe9) does not exist on {gen}"
                    ),
                });
            }
            let body = D4Mr {
                dst_element_count: 8,
                dtype: t.dtype,
                num_active_channels: s.num_active_channels,
                dst_mem_pattern: slots8::<4>(gen, t, "dst_idx")?,
                ..D4Mr::default()
            };
            insts.push(Instruction::build(op::DVE_READ_INDICES, body));
        }
        self.emit_all(insts)
    }
}

/// MatchValueLoad (0x6d) of a `(P, 8)` tile of keys.
fn match_value_load(gen: tpb_isa::Gen, vals: &Tile) -> Result<Instruction, NkiError> {
    if vals.free_elements() != 8 {
        return Err(NkiError::Shape {
            operand: "vals",
            detail: format!("must hold 8 values per partition, not {:?}", vals.shape),
        });
    }
    // Read backwards: MatchValueLoad stores src[k] in slot 7 - k, so slot n holds vals[n]
    // and the keys are tried in vals' order (assumption `search-nki-order`).
    let v = packed::<2>(gen, &backwards(vals)?, "vals")?;
    let body = S2Bn {
        src_mem_pattern: v.tensor,
        dtype: vals.dtype,
        num_active_channels: v.num_active_channels,
        ..S2Bn::default()
    };
    Ok(Instruction::build(op::MATCH_VALUE_LOAD, body))
}

/// The view of `t` that walks its elements in reverse order (last element first, every
/// free stride negated); a zero-step (broadcast) dim stays zero-step.
fn backwards(t: &Tile) -> Result<Tile, NkiError> {
    let strides = t.strides();
    let free = t.shape.get(1..).unwrap_or(&[]);
    let last: i64 = free
        .iter()
        .zip(&strides)
        .map(|(&d, &st)| (d as i64 - 1) * st)
        .sum();
    let size = t.dtype.size().unwrap_or(1) as i64;
    let offset = u64::try_from(t.offset as i64 + last * size).map_err(|_| NkiError::Shape {
        operand: "vals",
        detail: format!("{t} cannot be walked backwards"),
    })?;
    let mut r = t.clone();
    r.offset = offset;
    r.free_strides = strides.iter().map(|st| -st).collect();
    Ok(r)
}

/// A search call's `(P, 8)` operand: eight slots per partition.
fn check_slots8(t: &Tile, operand: &'static str) -> Result<(), NkiError> {
    if t.free_elements() != 8 {
        return Err(NkiError::Shape {
            operand,
            detail: format!("must have shape (P, 8), not {:?}", t.shape),
        });
    }
    Ok(())
}

/// The descriptor of a `(P, 8)` tile's 8 slots in order (the search results' slot n is
/// NKI's position n once the keys are loaded in vals' order).
fn slots8<const N: usize>(
    gen: tpb_isa::Gen,
    t: &Tile,
    operand: &'static str,
) -> Result<Tensor<N>, NkiError> {
    check_slots8(t, operand)?;
    Ok(packed::<N>(gen, t, operand)?.tensor)
}

/// The descriptor of a `(P, 8)` tile walked backwards (element 7 first, step −1), so the
/// ISA's slot n lands at NKI's position 7 − n (assumption `search-nki-order`).
fn reversed8<const N: usize>(
    gen: tpb_isa::Gen,
    t: &Tile,
    operand: &'static str,
) -> Result<Tensor<N>, NkiError> {
    check_slots8(t, operand)?;
    let size = t.dtype.size().unwrap_or(1) as u64;
    let last = u32::try_from(t.offset + 7 * size).unwrap_or(u32::MAX);
    let addr = Geometry::of(gen)
        .address(t.space, t.start_partition, last)
        .ok_or_else(|| NkiError::Pack {
            operand,
            detail: format!("{t} has no address on {gen}"),
        })?;
    let mut d = Tensor::<N> {
        start_addr: Addr4(addr),
        ..Tensor::default()
    };
    d.step_elem = [1; N];
    d.num_elem = [1; N];
    d.step_elem[0] = -1;
    d.num_elem[0] = 8;
    Ok(d)
}

/// The accumulator command of a cache op call (0x9a, 0xe6): the validator accepts
/// ZeroAccumulate, Accumulate and LoadAccumulate only (isa-facts-dve-pool §12.3).
fn cache_accum_cmd(call: &str, reduce_cmd: ReduceCmd) -> Result<AccumCmd, NkiError> {
    match reduce_cmd {
        ReduceCmd::ResetReduce | ReduceCmd::Reduce | ReduceCmd::LoadReduce => {
            Ok(reduce_cmd.accum_cmd())
        }
        other => Err(NkiError::NotSupported {
            what: format!(
                "{call} reduce_cmd={other:?}: the cache op accepts reset_reduce, reduce and \
                 load_reduce (has_valid_tensor_scalar_cache_reduce_accum_cmd, \
                 isa-facts-dve-pool §12.3)"
            ),
        }),
    }
}

/// The S3D3_TS body of a cache op (0x9a, 0xe6, §12.2): `src` through `[op0, op1]` with the
/// scalars `[imm0, imm1]` into `dst`, no reversal.
fn cache_op(
    gen: tpb_isa::Gen,
    cmd: AccumCmd,
    dst: &Tile,
    src: (&Tile, &'static str),
    ops: [AluOp; 2],
    imms: [Scalar; 2],
) -> Result<S3d3Ts, NkiError> {
    let s = packed::<3>(gen, src.0, src.1)?;
    let d = packed::<3>(gen, dst, "dst")?;
    Ok(S3d3Ts {
        accumulator_cmd: cmd,
        src_mem_pattern: s.tensor,
        in_dtype: src.0.dtype,
        out_dtype: dst.dtype,
        num_active_channels: d.num_active_channels,
        imm0_src: imms[0].src,
        op0: ops[0],
        op1: ops[1],
        reverse_operands: RevOps::NONE,
        imm1_src: imms[1].src,
        imm0: imms[0].imm,
        imm1: imms[1].imm,
        dst_mem_pattern: d.tensor,
        ..S3d3Ts::default()
    })
}

/// The lowerings of the calls this module defines ([`crate::call`]); argument positions
/// follow the calls' Python definitions (`python/tpb/nki/isa.py`).
pub(crate) const LOWERINGS: &[crate::Lowering] = {
    use crate::call::{one, Args};
    use crate::Lowering;
    &[
        // scalar_tensor_tensor(dst, data, op0, operand0, op1, operand1, reverse0=False,
        //                      reverse1=False, name=None)
        Lowering {
            name: "scalar_tensor_tensor",
            lower: |c, a: &Args<'_>| {
                one(c.scalar_tensor_tensor(
                    a.tile(0)?,
                    a.tile(1)?,
                    a.alu(2)?,
                    a.operand(3)?,
                    a.alu(4)?,
                    a.tile(5)?,
                    a.flag(6)?,
                    a.flag(7)?,
                ))
            },
        },
        // tensor_tensor_scan(dst, data0, data1, initial, op0, op1, reverse0=False,
        //                    reverse1=False, name=None)
        Lowering {
            name: "tensor_tensor_scan",
            lower: |c, a| {
                one(c.tensor_tensor_scan(
                    a.tile(0)?,
                    a.tile(1)?,
                    a.tile(2)?,
                    a.operand(3)?,
                    a.alu(4)?,
                    a.alu(5)?,
                    a.flag(6)?,
                    a.flag(7)?,
                ))
            },
        },
        // select_reduce(dst, predicate, on_true, on_false, reduce_res=None, reduce_cmd=idle,
        //               reduce_op=maximum, reverse_pred=False, name=None)
        Lowering {
            name: "select_reduce",
            lower: |c, a| {
                c.select_reduce(
                    a.tile(0)?,
                    a.tile(1)?,
                    a.tile(2)?,
                    a.operand(3)?,
                    a.tile_opt(4)?,
                    a.reduce_cmd(5)?,
                    a.alu(6)?,
                    a.flag(7)?,
                )
            },
        },
        // tensor_scalar_reduce(dst, data, op0, operand0, reduce_op, reduce_res=None,
        //                      reverse0=False, reduce_cmd=reset_reduce, reduce_init=None,
        //                      reduce_res_negate=False, name=None)
        Lowering {
            name: "tensor_scalar_reduce",
            lower: |c, a| {
                c.tensor_scalar_reduce(
                    a.tile(0)?,
                    a.tile(1)?,
                    a.alu(2)?,
                    a.operand(3)?,
                    a.alu(4)?,
                    a.tile_opt(5)?,
                    a.flag(6)?,
                    a.reduce_cmd(7)?,
                    a.operand_opt(8)?,
                    a.flag(9)?,
                )
            },
        },
        // tensor_scalar_cumulative(dst, src, op0, op1, imm0, imm1=None,
        //                          reduce_cmd=reset_reduce, name=None)
        Lowering {
            name: "tensor_scalar_cumulative",
            lower: |c, a| {
                one(c.tensor_scalar_cumulative(
                    a.tile(0)?,
                    a.tile(1)?,
                    a.alu(2)?,
                    a.alu(3)?,
                    a.operand(4)?,
                    a.operand_opt(5)?,
                    a.reduce_cmd(6)?,
                ))
            },
        },
        // max8(dst, src, name=None)
        Lowering {
            name: "max8",
            lower: |c, a| one(c.max8(a.tile(0)?, a.tile(1)?)),
        },
        // nc_find_index8(dst, data, vals, name=None)
        Lowering {
            name: "nc_find_index8",
            lower: |c, a| c.nc_find_index8(a.tile(0)?, a.tile(1)?, a.tile(2)?),
        },
        // nc_match_replace8(dst, data, vals, imm, dst_idx=None, name=None)
        Lowering {
            name: "nc_match_replace8",
            lower: |c, a| {
                c.nc_match_replace8(
                    a.tile(0)?,
                    a.tile(1)?,
                    a.tile(2)?,
                    a.float(3)?,
                    a.tile_opt(4)?,
                )
            },
        },
    ]
};
