//! The issue-17a calls: `tensor_tensor`, `tensor_copy`, `memset`, `reciprocal`,
//! `tensor_reduce`, `tensor_copy_predicated`, `nc_transpose` (Vector engine) and
//! `nc_stream_shuffle` (NKI 0.6.0 signatures, docs/reference/nki-calls.md; instructions in
//! docs/reference/dve-pool.md).

use crate::build::packed;
use crate::core::Core;
use crate::error::NkiError;
use crate::tile::Tile;
use crate::{NkiEngine, Operand};
use tpb_isa::wire::{
    op, Bytes, CtrlIm, D4Mr, DtypePair, ImmVal, S3d3CpPredScalar, S3s3d3Tt, S4d4Tr, Tensor4,
};
use tpb_isa::{AluOp, Dtype, ImmSrc, Instruction, TensorSubdim};
use tpb_sim::numerics::from_f32;
use tpb_sim::StepReport;

fn not_supported(what: String) -> NkiError {
    NkiError::NotSupported { what }
}

fn same_shape(dst: &Tile, src: &Tile, operand: &'static str) -> Result<(), NkiError> {
    if dst.partitions() != src.partitions() || dst.free_elements() != src.free_elements() {
        return Err(NkiError::Shape {
            operand,
            detail: format!(
                "shape {:?}, but dst is {:?} (NKI: same partitions and elements per partition)",
                src.shape, dst.shape
            ),
        });
    }
    Ok(())
}

/// The GpSimd int-band op the compiler writes for an all-int32/uint32 `op`
/// (isa-facts-dve-pool §1.6), if there is one.
fn int_band(op: AluOp) -> Option<AluOp> {
    match op {
        AluOp::ADD => Some(AluOp::ADD_INT),
        AluOp::SUBTRACT => Some(AluOp::SUBTRACT_INT),
        AluOp::MULT => Some(AluOp::MULT_INT),
        _ => None,
    }
}

fn is_32b_int(d: Dtype) -> bool {
    d == Dtype::INT32 || d == Dtype::UINT32
}

/// A `TENSOR4D` of `tile` with the given `[step, num]` slots (innermost first).
fn tensor4(
    gen: tpb_isa::Gen,
    tile: &Tile,
    operand: &'static str,
    slots: &[(i64, u64)],
) -> Result<(Tensor4, u8), NkiError> {
    let p = packed::<4>(gen, tile, operand)?;
    if slots.is_empty() {
        return Ok((p.tensor, p.num_active_channels));
    }
    let mut t = Tensor4 {
        start_addr: p.tensor.start_addr,
        step_elem: [1; 4],
        num_elem: [1; 4],
    };
    for (i, &(step, num)) in slots.iter().enumerate() {
        let bad = || NkiError::Shape {
            operand,
            detail: format!("[{step}, {num}] does not fit a descriptor slot"),
        };
        t.step_elem[i] = i16::try_from(step).map_err(|_| bad())?;
        t.num_elem[i] = u16::try_from(num).map_err(|_| bad())?;
    }
    Ok((t, p.num_active_channels))
}

impl Core {
    fn run(&mut self, i: Instruction) -> Result<StepReport, NkiError> {
        self.emit_instruction(i)
    }

    /// `nki.isa.tensor_tensor(dst, data1, data2, op, engine=engine.unknown)`:
    /// `dst = data1 op data2` element by element (TensorTensor 0x41 / 0x51). Arithmetic ops
    /// compute in FP32; with all three tiles int32/uint32, add/subtract/multiply run on the
    /// GpSimd integer band (exact, wrapping) unless `engine` is Vector; bitvec ops need one
    /// integer dtype.
    pub fn tensor_tensor(
        &mut self,
        dst: &Tile,
        data1: &Tile,
        data2: &Tile,
        op: AluOp,
        engine: NkiEngine,
    ) -> Result<StepReport, NkiError> {
        same_shape(dst, data1, "data1")?;
        same_shape(dst, data2, "data2")?;
        crate::core::not_both_psum((data1, "data1"), (data2, "data2"))?;
        if matches!(engine, NkiEngine::Scalar | NkiEngine::Tensor) {
            return Err(not_supported(format!(
                "tensor_tensor on engine {engine:?}: NKI allows vector, gpsimd or unknown"
            )));
        }
        let gen = self.gen();
        let bitvec = op.is_bitvec_op() && op != AluOp::BYPASS;
        let ints = is_32b_int(data1.dtype) && is_32b_int(data2.dtype) && is_32b_int(dst.dtype);
        let alu = match int_band(op) {
            Some(i) if ints && engine != NkiEngine::Vector => i,
            _ => op,
        };
        let opcode = if bitvec {
            op::TENSOR_TENSOR_BITVEC
        } else {
            op::TENSOR_TENSOR_ARITH
        };
        let views = [dst.clone(), data1.clone(), data2.clone()];
        self.elementwise(3, &views, &mut |core, v| {
            let s0 = packed::<3>(gen, &v[1], "data1")?;
            let s1 = packed::<3>(gen, &v[2], "data2")?;
            let d = packed::<3>(gen, &v[0], "dst")?;
            let body = S3s3d3Tt {
                in0_in1_dtype: DtypePair::new(v[1].dtype, v[2].dtype),
                out_dtype: v[0].dtype,
                op: alu,
                num_active_channels: d.num_active_channels,
                src0_mem_pattern: s0.tensor,
                src1_mem_pattern: s1.tensor,
                dst_mem_pattern: d.tensor,
            };
            core.run(Instruction::build(opcode, body))
        })
    }

    fn s4d4_tr(
        &mut self,
        opcode: tpb_isa::wire::TypedOpcode<S4d4Tr>,
        dst: &Tile,
        src: &Tile,
    ) -> Result<StepReport, NkiError> {
        same_shape(dst, src, "src")?;
        let gen = self.gen();
        self.elementwise(4, &[dst.clone(), src.clone()], &mut |core, v| {
            let body = bypass_move(gen, &v[0], &v[1])?;
            core.run(Instruction::build(opcode, body))
        })
    }

    /// `nki.isa.tensor_copy(dst, src, engine=engine.unknown)`: an on-chip copy, bit-exact when
    /// the dtypes are equal (Copy 0x46), else converted through FP32 (Cast 0x47: RNE, integer
    /// targets saturate), on Vector or GpSimd. `engine=scalar` is ScalarE's copy, which NKI
    /// documents as always going through FP32 and, on NC-v2, as unsupported (use
    /// `activation(op=nl.copy)`): one Activate of the exact `copy` function with scale 1
    /// (nki-api §3 `tensor_copy`; assumption `act-rounding`: the value passes
    /// `fma(x, 1, 0)` in FP32, so an int32 beyond 2^24 rounds and -0.0 becomes +0.0).
    pub fn tensor_copy(
        &mut self,
        dst: &Tile,
        src: &Tile,
        engine: NkiEngine,
    ) -> Result<StepReport, NkiError> {
        if engine == NkiEngine::Tensor {
            return Err(not_supported(
                "tensor_copy on engine Tensor: NKI copies on vector, gpsimd or scalar".into(),
            ));
        }
        if engine == NkiEngine::Scalar {
            if self.gen() == tpb_isa::Gen::Sunda {
                return Err(not_supported(
                    "tensor_copy on engine Scalar on NeuronCore-v2 (sunda): NKI documents it as \
                     unsupported there (use activation(op=nl.copy))"
                        .into(),
                ));
            }
            same_shape(dst, src, "src")?;
            let steps = self.activation(
                dst,
                tpb_isa::ActFunc::COPY,
                src,
                None,
                &Operand::Imm(1.0),
                None,
                None,
                crate::ReduceCmd::Idle,
            )?;
            return steps.into_iter().last().ok_or_else(|| {
                not_supported("tensor_copy on engine Scalar emitted nothing".into())
            });
        }
        let opcode = if dst.dtype == src.dtype {
            op::COPY
        } else {
            op::CAST
        };
        self.s4d4_tr(opcode, dst, src)
    }

    /// `nki.isa.reciprocal(dst, data)`: `dst = 1 / data` in FP32 (Reciprocal 0x48;
    /// IEEE division, an approximation of the hardware's seed-and-refine datapath).
    pub fn reciprocal(&mut self, dst: &Tile, data: &Tile) -> Result<StepReport, NkiError> {
        self.s4d4_tr(op::RECIPROCAL, dst, data)
    }

    /// `nki.isa.memset(dst, value, engine=engine.unknown)`: fill `dst` with `value`
    /// (Memset 0x49). `value` is converted to dst's dtype (RNE for floats); for an integer
    /// dtype it must be an integer in the dtype's range (NKI ≥ 0.3.0 checks the type).
    pub fn memset(
        &mut self,
        dst: &Tile,
        value: f64,
        engine: NkiEngine,
    ) -> Result<StepReport, NkiError> {
        if matches!(engine, NkiEngine::Scalar | NkiEngine::Tensor) {
            return Err(not_supported(format!(
                "memset on engine {engine:?}: NKI allows vector, gpsimd or unknown"
            )));
        }
        let d = dst.dtype;
        let bits = if d.is_int_datapath() {
            let (lo, hi, width) = match d {
                Dtype::INT8 => (i8::MIN as f64, i8::MAX as f64, 8),
                Dtype::UINT8 => (0.0, u8::MAX as f64, 8),
                Dtype::INT16 => (i16::MIN as f64, i16::MAX as f64, 16),
                Dtype::UINT16 => (0.0, u16::MAX as f64, 16),
                Dtype::INT32 => (i32::MIN as f64, i32::MAX as f64, 32),
                _ => (0.0, u32::MAX as f64, 32),
            };
            if value.fract() != 0.0 || !(lo..=hi).contains(&value) {
                return Err(NkiError::Value {
                    argument: "value",
                    detail: format!("{value} is not a {d} value"),
                });
            }
            let v = value as i64 as u64;
            (v & ((1u64 << width) - 1)) as u32
        } else {
            // A finite value stays finite (no silent inf from an out-of-range literal).
            let v = crate::core::fp32("value", value)?;
            let fp8 = self.machine().config().fp8;
            from_f32(d, v, &fp8)
        };
        let gen = self.gen();
        self.elementwise(4, std::slice::from_ref(dst), &mut |core, v| {
            let p = packed::<4>(gen, &v[0], "dst")?;
            let body = D4Mr {
                dst_element_count: u32::try_from(v[0].free_elements()).unwrap_or(u32::MAX),
                dtype: d,
                num_active_channels: p.num_active_channels,
                set_value: bits,
                dst_mem_pattern: p.tensor,
                ..D4Mr::default()
            };
            core.run(Instruction::build(op::MEMSET, body))
        })
    }

    /// `nki.isa.tensor_reduce(dst, op, data, axis, negate=False, keepdims=False)`: reduce the
    /// trailing free axes `axis` of `data` with `op` (TensorReduce 0x42 / 0x52); arithmetic
    /// ops fold in FP32 in element order, `negate` negates the result. `dst` holds the kept
    /// elements per partition (`keepdims` only changes the shape NKI reports).
    pub fn tensor_reduce(
        &mut self,
        dst: &Tile,
        op: AluOp,
        data: &Tile,
        axis: &[usize],
        negate: bool,
        _keepdims: bool,
    ) -> Result<StepReport, NkiError> {
        let rank = data.shape.len();
        let mut axes: Vec<usize> = axis.to_vec();
        axes.sort_unstable();
        axes.dedup();
        let trailing = !axes.is_empty()
            && axes[0] >= 1
            && axes.last() == Some(&(rank - 1))
            && axes.windows(2).all(|w| w[1] == w[0] + 1);
        if !trailing {
            return Err(NkiError::Value {
                argument: "axis",
                detail: format!(
                    "{axis:?} on a rank-{rank} tile: NKI reduces trailing contiguous free axes \
                     (never axis 0)"
                ),
            });
        }
        let reduced: u64 = axes.iter().map(|&a| data.shape[a] as u64).product();
        let kept = data.free_elements() / reduced.max(1);
        if dst.partitions() != data.partitions() || dst.free_elements() != kept {
            return Err(NkiError::Shape {
                operand: "dst",
                detail: format!(
                    "shape {:?}: the reduction of {:?} over {axis:?} has {kept} elements per \
                     partition",
                    dst.shape, data.shape
                ),
            });
        }
        let gen = self.gen();
        let bitvec = op.is_bitvec_op() && op != AluOp::BYPASS;
        if bitvec && negate {
            return Err(NkiError::Value {
                argument: "negate",
                detail: "negate applies to arithmetic reductions only".into(),
            });
        }
        let (src, n, op_dim) = reduce_pattern(gen, data, axes[0])?;
        let (d, _) = tensor4(gen, dst, "dst", &[])?;
        let body = S4d4Tr {
            src_mem_pattern: src,
            in_dtype: data.dtype,
            out_dtype: dst.dtype,
            num_active_channels: n,
            negated: u8::from(negate),
            op,
            op_dim,
            dst_mem_pattern: d,
            ..S4d4Tr::default()
        };
        let opcode = if bitvec {
            op::TENSOR_REDUCE_BITVEC
        } else {
            op::TENSOR_REDUCE_ARITH
        };
        self.run(Instruction::build(opcode, body))
    }

    /// `nki.isa.tensor_copy_predicated(dst, src, predicate, reverse_pred=False)`: where the
    /// predicate is nonzero (zero with `reverse_pred`) write `src`, elsewhere keep `dst`.
    /// A tile `src` is CopyPredicated (0x72, no polarity flag, so `reverse_pred` with a tile
    /// is refused); a scalar `src` is CopyPredicatedScalar (0xe8, whose default polarity
    /// writes where the predicate is zero).
    pub fn tensor_copy_predicated(
        &mut self,
        dst: &Tile,
        src: &Operand,
        predicate: &Tile,
        reverse_pred: bool,
    ) -> Result<StepReport, NkiError> {
        same_shape(dst, predicate, "predicate")?;
        let gen = self.gen();
        let p = packed::<3>(gen, predicate, "predicate")?;
        let d = packed::<3>(gen, dst, "dst")?;
        match src {
            Operand::Tile(t) => {
                same_shape(dst, t, "src")?;
                if reverse_pred {
                    return Err(not_supported(
                        "tensor_copy_predicated with a tile src and reverse_pred=True: \
                         CopyPredicated (0x72) has no polarity flag and the compiler's lowering \
                         is not public"
                            .into(),
                    ));
                }
                let s = packed::<3>(gen, t, "src")?;
                let body = S3s3d3Tt {
                    in0_in1_dtype: DtypePair::new(predicate.dtype, t.dtype),
                    out_dtype: dst.dtype,
                    op: AluOp::BYPASS,
                    num_active_channels: d.num_active_channels,
                    src0_mem_pattern: p.tensor,
                    src1_mem_pattern: s.tensor,
                    dst_mem_pattern: d.tensor,
                };
                let opcode = if t.dtype == dst.dtype {
                    op::COPY_PREDICATED
                } else {
                    op::CAST_PREDICATED
                };
                self.run(Instruction::build(opcode, body))
            }
            scalar => {
                let bits = match scalar {
                    Operand::Bits(b) => *b,
                    Operand::Imm(v) if dst.dtype.is_int_datapath() => *v as i64 as u32,
                    Operand::Imm(v) => {
                        let fp8 = self.machine().config().fp8;
                        from_f32(dst.dtype, *v as f32, &fp8)
                    }
                    Operand::Tile(_) => 0,
                };
                let body = S3d3CpPredScalar {
                    pred_mem_pattern: p.tensor,
                    pred_dtype: predicate.dtype,
                    // 0xe8 writes the scalar where `(pred != 0) == reversed_pred`.
                    reversed_pred: u8::from(!reverse_pred),
                    num_active_channels: d.num_active_channels,
                    in_dtype: dst.dtype,
                    out_dtype: dst.dtype,
                    src0_imm_src: ImmSrc::INSTRUCTION,
                    src0_imm: ImmVal(bits),
                    dst_mem_pattern: d.tensor,
                    ..S3d3CpPredScalar::default()
                };
                self.run(Instruction::build(op::COPY_PREDICATED_SCALAR, body))
            }
        }
    }

    /// `nki.isa.nc_transpose(dst, data, engine=engine.unknown)` on the Vector engine: a
    /// 32 × 32 partition↔free transpose (StreamTranspose 0x6b). tpb runs whole 32 × 32 tiles
    /// (data `[32, 32]`); the PE transpose (`engine.tensor`) is not this call's instruction.
    pub fn nc_transpose(
        &mut self,
        dst: &Tile,
        data: &Tile,
        engine: NkiEngine,
    ) -> Result<StepReport, NkiError> {
        if !matches!(engine, NkiEngine::Vector | NkiEngine::Unknown) {
            return Err(not_supported(format!(
                "nc_transpose on engine {engine:?}: only the Vector-engine transpose \
                 (StreamTranspose) is modelled"
            )));
        }
        if data.partitions() != 32
            || data.free_elements() != 32
            || dst.partitions() != 32
            || dst.free_elements() != 32
        {
            if engine == NkiEngine::Unknown {
                // The compiler transposes other tiles on the PE.
                return Err(NkiError::NotYet {
                    what: format!(
                        "nc_transpose of {:?} into {:?} needs the PE transpose (MatMult \
                         with an identity, issue 18a); the Vector transpose takes whole \
                         [32, 32] tiles only",
                        data.shape, dst.shape
                    ),
                });
            }
            return Err(not_supported(format!(
                "nc_transpose of {:?} into {:?}: tpb runs the Vector transpose on whole \
                 [32, 32] tiles (partial tiles' mask_enable is not public, Q21)",
                data.shape, dst.shape
            )));
        }
        if dst.dtype != data.dtype {
            return Err(NkiError::Shape {
                operand: "dst",
                detail: format!("dtype {} must equal data's {}", dst.dtype, data.dtype),
            });
        }
        self.s4d4_tr(op::STREAM_TRANSPOSE, dst, data)
    }

    /// `nki.isa.nc_stream_shuffle(dst, src, shuffle_mask)`: inside each 32-partition
    /// quadrant, dst partition `i` takes src partition `shuffle_mask[i]` (32 entries, each
    /// 0..31 or 255 = leave dst partition `i` unchanged); same dtype and elements per
    /// partition; in place allowed (nki-api §3, nc_stream_shuffle).
    ///
    /// The active partitions `A = ceil(max(src_P, dst_P) / 32) · 32` decide where the tiles
    /// may start (NKI: A ∈ {96, 128} → 0; A = 64 → 0 or 64; A = 32 → 0, 32, 64 or 96).
    /// tpb's emission (docs/reference/nki-calls.md, "tpb's own choices"): LoadMaskSelect
    /// (0x69) with the mask, then StreamShuffle (0x6a) over dst's whole quadrants, and, when
    /// dst_P is not a multiple of 32, a second pair over its last partial quadrant with the
    /// lanes past dst_P set to 255, so nothing outside dst is written. A lane that would
    /// read a src partition past src_P into dst is refused (that data is not src's).
    pub fn nc_stream_shuffle(
        &mut self,
        dst: &Tile,
        src: &Tile,
        shuffle_mask: &[i64],
    ) -> Result<Vec<StepReport>, NkiError> {
        let mask = shuffle_table(shuffle_mask)?;
        if dst.dtype != src.dtype {
            return Err(NkiError::Shape {
                operand: "src",
                detail: format!(
                    "dtype {} must equal dst's {} (StreamShuffle moves raw bits, §14.1)",
                    src.dtype, dst.dtype
                ),
            });
        }
        if dst.free_elements() != src.free_elements() {
            return Err(NkiError::Shape {
                operand: "src",
                detail: format!(
                    "shape {:?}, but dst is {:?} (NKI: same elements per partition)",
                    src.shape, dst.shape
                ),
            });
        }
        let (sp, dp) = (src.partitions(), dst.partitions());
        let active = sp.max(dp).div_ceil(32) * 32;
        for (t, operand) in [(src, "src"), (dst, "dst")] {
            let start = t.start_partition;
            let allowed = match active {
                96 | 128 => start == 0,
                64 => start == 0 || start == 64,
                _ => start % 32 == 0,
            };
            if !allowed {
                return Err(NkiError::Shape {
                    operand,
                    detail: format!(
                        "starts at partition {start}; with A = {active} active partitions \
                         (ceil(max(src_P, dst_P) / 32) · 32) NKI requires start 0 (A ≥ 96), \
                         0 or 64 (A = 64), or a multiple of 32 (A = 32)"
                    ),
                });
            }
        }
        for p in 0..dp {
            let m = mask[(p % 32) as usize];
            if m < 32 && p / 32 * 32 + u32::from(m) >= sp {
                return Err(NkiError::Value {
                    argument: "shuffle_mask",
                    detail: format!(
                        "shuffle_mask[{}] = {m} sends src partition {} to dst partition {p}, \
                         but src has {sp} partitions (use 255 to leave that dst partition)",
                        p % 32,
                        p / 32 * 32 + u32::from(m)
                    ),
                });
            }
        }
        let gen = self.gen();
        let whole = dp / 32 * 32;
        let mut insts = Vec::new();
        let mut pair = |first: u32, n: u32, table: [u8; 32]| -> Result<(), NkiError> {
            let body = bypass_move(gen, &partitions(dst, first, n), &partitions(src, first, n))?;
            let load = Instruction::build(
                op::LOAD_MASK_SELECT,
                CtrlIm {
                    immediate: Bytes(table),
                    ..CtrlIm::default()
                },
            );
            insts.push(load);
            insts.push(Instruction::build(op::STREAM_SHUFFLE, body));
            Ok(())
        };
        if whole > 0 {
            pair(0, whole, mask)?;
        }
        if dp > whole {
            let keep = dp - whole;
            let table = std::array::from_fn(|j| if j as u32 >= keep { 255 } else { mask[j] });
            pair(whole, 32, table)?;
        }
        self.emit_all(insts)
    }
}

/// The S4D4_TR body of a Bypass move of `src` into `dst` (Copy/Cast/Reciprocal,
/// StreamTranspose, StreamShuffle, §4.2), over dst's partitions.
/// TensorReduce's source: the data view's reduced dims (`first_reduced..`, innermost) then
/// its kept dims, each merged and split into descriptor words as the packer does
/// ([`crate::free_pattern`]); `op_dim` covers the reduced slots (X = slot 0, XY = 0..1, …).
/// Both together must fit the four slots of a `TENSOR4D`.
fn reduce_pattern(
    gen: tpb_isa::Gen,
    data: &Tile,
    first_reduced: usize,
) -> Result<(Tensor4, u8, TensorSubdim), NkiError> {
    let dims: Vec<(usize, i64)> = data.shape[1..]
        .iter()
        .copied()
        .zip(data.strides())
        .collect();
    let (kept, reduced) = dims.split_at(first_reduced - 1);
    let limit = |what: &str| NkiError::Shape {
        operand: "data",
        detail: format!(
            "{data}: the reduction needs {what}; one TensorReduce walks at most 4 \
             descriptor dims of at most 65535 elements (steps of at most 32767): reduce a \
             smaller part per call"
        ),
    };
    let r = crate::free_pattern(reduced.iter().copied())
        .ok_or_else(|| limit("a count with no split into descriptor words"))?;
    let mut k = crate::free_pattern(kept.iter().copied())
        .ok_or_else(|| limit("a count with no split into descriptor words"))?;
    k.retain(|d| d.num != 1);
    // Innermost first: the reduced dims fill the low slots, the kept ones follow.
    let slots: Vec<(i64, u64)> = r
        .iter()
        .rev()
        .chain(k.iter().rev())
        .map(|d| (d.step, d.num as u64))
        .collect();
    if slots.len() > 4 {
        return Err(limit(&format!(
            "{} descriptor dims ({} reduced, {} kept)",
            slots.len(),
            r.len(),
            k.len()
        )));
    }
    let op_dim = match r.len() {
        1 => TensorSubdim::X,
        2 => TensorSubdim::XY,
        3 => TensorSubdim::XYZ,
        _ => TensorSubdim::XYZW,
    };
    let (t, n) = tensor4(gen, data, "data", &slots)?;
    Ok((t, n, op_dim))
}

fn bypass_move(gen: tpb_isa::Gen, dst: &Tile, src: &Tile) -> Result<S4d4Tr, NkiError> {
    let s = packed::<4>(gen, src, "src")?;
    let d = packed::<4>(gen, dst, "dst")?;
    Ok(S4d4Tr {
        src_mem_pattern: s.tensor,
        in_dtype: src.dtype,
        out_dtype: dst.dtype,
        num_active_channels: d.num_active_channels,
        op: AluOp::BYPASS,
        op_dim: TensorSubdim::UNUSED,
        dst_mem_pattern: d.tensor,
        ..S4d4Tr::default()
    })
}

/// A `shuffle_mask` as LoadMaskSelect bytes: exactly 32 entries, each 0..31 or 255.
fn shuffle_table(shuffle_mask: &[i64]) -> Result<[u8; 32], NkiError> {
    let bad = |detail: String| NkiError::Value {
        argument: "shuffle_mask",
        detail,
    };
    if shuffle_mask.len() != 32 {
        return Err(bad(format!(
            "{} entries; NKI takes exactly 32 (one per partition of a quadrant)",
            shuffle_mask.len()
        )));
    }
    let mut table = [0u8; 32];
    for (j, (&m, t)) in shuffle_mask.iter().zip(&mut table).enumerate() {
        *t = match m {
            0..=31 | 255 => m as u8,
            _ => {
                return Err(bad(format!(
                    "shuffle_mask[{j}] = {m}: each entry is a partition 0..31 of the quadrant, \
                     or 255 to leave the output partition unchanged"
                )))
            }
        };
    }
    Ok(table)
}

/// `n` partitions of `t` from its partition `first` (past its end too: StreamShuffle
/// covers whole quadrants; the caller checks which of them are read or written).
fn partitions(t: &Tile, first: u32, n: u32) -> Tile {
    let mut v = t.clone();
    v.start_partition += first;
    v.shape[0] = n as usize;
    v
}

/// The lowerings of the calls this module defines ([`crate::call`]); argument positions
/// follow the calls' Python definitions (`python/tpb/nki/isa.py`).
pub(crate) const LOWERINGS: &[crate::Lowering] = {
    use crate::call::{one, Args};
    use crate::Lowering;
    &[
        // tensor_tensor(dst, data1, data2, op, engine=engine.unknown, name=None)
        Lowering {
            name: "tensor_tensor",
            lower: |c, a: &Args<'_>| {
                one(c.tensor_tensor(a.tile(0)?, a.tile(1)?, a.tile(2)?, a.alu(3)?, a.engine(4)?))
            },
        },
        // tensor_copy(dst, src, engine=engine.unknown, name=None)
        Lowering {
            name: "tensor_copy",
            lower: |c, a| one(c.tensor_copy(a.tile(0)?, a.tile(1)?, a.engine(2)?)),
        },
        // memset(dst, value, engine=engine.unknown, name=None)
        Lowering {
            name: "memset",
            lower: |c, a| one(c.memset(a.tile(0)?, a.float(1)?, a.engine(2)?)),
        },
        // reciprocal(dst, data, name=None)
        Lowering {
            name: "reciprocal",
            lower: |c, a| one(c.reciprocal(a.tile(0)?, a.tile(1)?)),
        },
        // tensor_reduce(dst, op, data, axis, negate=False, keepdims=False, name=None)
        Lowering {
            name: "tensor_reduce",
            lower: |c, a| {
                let axes = a
                    .ints(3)?
                    .iter()
                    .map(|&x| {
                        usize::try_from(x).map_err(|_| a.refuse(3, format!("{x} is negative")))
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                one(c.tensor_reduce(
                    a.tile(0)?,
                    a.alu(1)?,
                    a.tile(2)?,
                    &axes,
                    a.flag(4)?,
                    a.flag(5)?,
                ))
            },
        },
        // tensor_copy_predicated(dst, src, predicate, reverse_pred=False, name=None)
        Lowering {
            name: "tensor_copy_predicated",
            lower: |c, a| {
                one(c.tensor_copy_predicated(a.tile(0)?, a.operand(1)?, a.tile(2)?, a.flag(3)?))
            },
        },
        // nc_stream_shuffle(dst, src, shuffle_mask, name=None)
        Lowering {
            name: "nc_stream_shuffle",
            lower: |c, a| c.nc_stream_shuffle(a.tile(0)?, a.tile(1)?, a.ints(2)?),
        },
    ]
};
