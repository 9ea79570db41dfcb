//! The verdict as it was before issue 16: a second, hand-written copy of every chain as one
//! boolean expression (formerly `src/validate/fast.rs`), frozen here only so the decode bench
//! can compare the single-source verdict with it in one run. Not used by any other code.
#![allow(dead_code)]

use tpb_isa::gen::Gen;
use tpb_isa::geometry::{Geometry, Space, NUM_CHANNELS, NUM_REGISTERS};
use tpb_isa::opcode::{Family, Form, OpcodeInfo};
use tpb_isa::tables::{AccumCmd, AluOp, Dtype, ImmSrc, RevOps, TensorSubdim, UpdateMode};
use tpb_isa::wire::{
    Addr4, AddrForm, BodyView, D4Iota, EventSemaphore, ImmVal, InstView, S2Bn, S2d2Rs, S2d2TsAs,
    S3d3Ts, S3d3TsSelect, S4d4Tsm, Tensor, View, INST_WORD_LEN,
};

/// Whether the bundle is valid on the view's generation: the same verdict as
/// `validate(..).is_valid()` on the decoded instruction.
#[inline]
pub fn is_valid_view(v: &InstView<'_>) -> bool {
    let gen = v.gen();
    let (h, e) = (v.header(), v.events());
    // `has_valid_neuron_header` / `has_valid_neuron_events`, then the struct's chain.
    let Some(info) = v.info() else { return false };
    if !(h.inst_word_len() == INST_WORD_LEN
        && e.wait_mode().defined_on(gen)
        && e.update_mode().defined_on(gen))
    {
        return false;
    }
    // A view's body is always the opcode's struct, so `has_<struct>_opcode` holds. Exhaustive
    // over the table's families, as the chains' dispatch: a new family does not build here
    // until it has a fast chain.
    let body = v.body();
    match info.family {
        Family::PtrMulti => matches!(body, BodyView::S4d4Tsm(s) if ptr_multi(gen, info, s)),
        Family::ImmLd => matches!(body, BodyView::S2Bn(s) if imm_ld(gen, info, s)),
        Family::BatchNormParamLoad => {
            matches!(body, BodyView::S2Bn(s) if batch_norm_param_load(gen, s))
        }
        Family::MatchValueLoad => matches!(body, BodyView::S2Bn(s) if match_value_load(gen, s)),
        Family::AffineSelect => matches!(body, BodyView::S2d2TsAs(s) if affine_select(gen, s)),
        Family::Iota => matches!(body, BodyView::D4Iota(s) if iota(gen, s)),
        Family::TensorScalar => {
            matches!(body, BodyView::S3d3Ts(s) if tensor_scalar(gen, info, s))
        }
        Family::TsSelect => matches!(body, BodyView::S3d3TsSelect(s) if ts_select(gen, s)),
        Family::RangeSelect => matches!(body, BodyView::S2d2Rs(s) if range_select(gen, s)),
        Family::EventSemaphore => {
            matches!(body, BodyView::EventSemaphore(s) if event_semaphore(gen, v, s))
        }
        // Families added after issue 16 have no pre-16 form: the single-source verdict.
        Family::DmaMemcpy
        | Family::PseudoDma
        | Family::PseudoExt
        | Family::DmaIndirect
        | Family::DmaTranspose
        | Family::DmaGatherTranspose
        | Family::DmaMemcpy2
        | Family::DmaImmediate
        | Family::Mem2d
        | Family::LoadWeights
        | Family::Matmul
        | Family::PeRegWrite
        | Family::LoadTags
        | Family::MatmulSparse
        | Family::PeManageSeed
        | Family::LoadWeightsMx
        | Family::MatmulMx
        | Family::ConvLutLoad
        | Family::Activate
        | Family::ActivateQuantize
        | Family::ActReadAccumulator
        | Family::Activate2
        | Family::Exponential => tpb_isa::validate::is_valid_view(v),
        // Issue 17a's families never had a hand-written copy: the single-source verdict.
        Family::TensorTensor
        | Family::TensorTensorBf16
        | Family::CopyCastPredicated
        | Family::CopyPredicatedScalar
        | Family::CopyCast
        | Family::Reciprocal
        | Family::Memset
        | Family::DveReadIndices
        | Family::TensorReduce
        | Family::StreamShuffle
        | Family::StreamTranspose
        // Issue 17b's families, likewise.
        | Family::ScalarTensorTensor
        | Family::TensorTensorScan
        | Family::SelectReduce
        | Family::CacheReduce
        | Family::DveReadAccumulator
        | Family::Search
        | Family::MatchReplace8
        | Family::CrossLaneReduce
        | Family::LoadMaskSelect => tpb_isa::validate::is_valid(&v.owned(), gen),
    }
}

/// `has_valid_active_channel_range` (both spellings test the same range).
#[inline(always)]
fn channels(n: u8) -> bool {
    (1..=NUM_CHANNELS).contains(&u32::from(n))
}

#[inline(always)]
fn zero<const N: usize>(b: tpb_isa::wire::Bytes<N>) -> bool {
    b.is_zero()
}

#[inline(always)]
fn not_div_pow_mod(o: AluOp) -> bool {
    !matches!(o, AluOp::DIVIDE | AluOp::POW | AluOp::MOD)
}

/// Where an operand may live, as `tensorNd_valid`'s arguments give it.
#[derive(Clone, Copy)]
struct Place {
    dtype: Dtype,
    write: bool,
    psum: bool,
    sbuf: bool,
}

const fn rw(dtype: Dtype, write: bool) -> Place {
    Place {
        dtype,
        write,
        psum: true,
        sbuf: true,
    }
}

/// `tensorNd_valid` and `start_addr_active_channels` (without its placement lint) for one
/// descriptor operand of `n` channels (common.rs `tensor_valid`, `start_addr_checks`,
/// `start_addr_active_channels`): every chain checks both for the same operands, and here
/// the address is located once for both.
#[inline(always)]
fn operand<const N: usize>(gen: Gen, t: Tensor<N>, p: Place, n: u8) -> bool {
    let a = t.start_addr;
    let form = a.form();
    if let AddrForm::Malformed = form {
        return false;
    }
    if let (Some(second), true) = (t.indirect_addr(), p.write) {
        // Not an immediate address, so no channel check applies (decisions §2.2).
        let first = Place {
            dtype: Dtype::UINT32,
            ..p
        };
        return start_addr(gen, a, first).is_some() && start_addr(gen, second, p).is_some();
    }
    let placed = match form {
        AddrForm::Register(r) => u32::from(r) < NUM_REGISTERS,
        AddrForm::Immediate => match start_addr(gen, a, p) {
            Some((space, part, offset)) => {
                let g = Geometry::of(gen);
                part + u32::from(n) <= g.partitions && offset < g.active_bytes(space)
            }
            None => false,
        },
        _ => start_addr(gen, a, p).is_some(),
    };
    placed && (a.shape_from_register() || t.num_elem.iter().all(|&c| c != 0))
}

/// `tensor_start_addr_valid` and `addr_aligned_dtype` (common.rs `start_addr_checks`): where
/// the address is (space, partition, offset) when every clause holds.
#[inline(always)]
fn start_addr(gen: Gen, a: Addr4, p: Place) -> Option<(Space, u32, u32)> {
    let (space, part, offset) = Geometry::of(gen).locate(a.0)?;
    let in_psum = space == Space::Psum;
    let ok = aligned(a.byte_addr(), p.dtype.size())
        && (p.psum || !in_psum)
        && (p.sbuf || in_psum)
        && (!(p.write && in_psum) || p.dtype.size() == Some(4));
    ok.then_some((space, part, offset))
}

/// `addr_aligned_dtype`: a multiple of the element size (a power of two, so a mask rather
/// than a division); an unsized dtype is never aligned.
#[inline(always)]
fn aligned(b: u32, size: Option<usize>) -> bool {
    size.is_some_and(|s| b as usize & (s - 1) == 0)
}

/// `ts_ptr_imm_chk` (immediates.rs).
#[inline(always)]
fn ptr_imm(gen: Gen, v: ImmVal, bitvec: bool, in_dtype: Dtype, n: u8) -> bool {
    let a = Addr4(v.0);
    let align = if bitvec {
        in_dtype.size().unwrap_or(1)
    } else {
        4
    };
    match a.locate(gen) {
        Some((space, p, o)) => {
            let g = Geometry::of(gen);
            p + u32::from(n) <= g.partitions
                && o < g.active_bytes(space)
                && aligned(a.byte_addr(), Some(align))
        }
        None => false,
    }
}

/// `tensor_scalar_immediates_check` (immediates.rs `imm_by_src`).
#[inline(always)]
fn imm_by_src(gen: Gen, src: ImmSrc, v: ImmVal, bitvec: bool, in_dtype: Dtype, n: u8) -> bool {
    match src {
        ImmSrc::INSTRUCTION => {
            !bitvec
                || match in_dtype.size() {
                    Some(4) => true,
                    Some(2) => v.0 & 0xFFFF_0000 == 0,
                    Some(1) => v.0 & 0xFFFF_FF00 == 0,
                    _ => false,
                }
        }
        ImmSrc::POINTER => ptr_imm(gen, v, bitvec, in_dtype, n),
        ImmSrc::REG_PTR => v.0 < NUM_REGISTERS,
        _ => false,
    }
}

/// `S4D4_TSM` (chains/ptr_multi.rs).
fn ptr_multi(gen: Gen, info: &OpcodeInfo, s: View<'_, S4d4Tsm>) -> bool {
    let dual = info.form == Form::Dual;
    let bitvec = info.is_bitvec();
    let (src, dst) = (s.src_mem_pattern(), s.dst_mem_pattern());
    let (op, din, dout, n) = (s.op(), s.in_dtype(), s.out_dtype(), s.num_active_channels());
    let w = src.num_elem[3];
    let rev = s.reverse_operands();
    let any_order = dual && !bitvec;
    (1..=if dual { 4 } else { 8 }).contains(&w)
        && op.defined_on(gen)
        && not_div_pow_mod(op)
        && if bitvec {
            op.is_bitvec_op()
                && din == dout
                && matches!(
                    din,
                    Dtype::INT32 | Dtype::UINT32 | Dtype::UINT16 | Dtype::UINT8
                )
        } else {
            op.is_general_arith_op(gen)
        }
        && rev.defined_on(gen)
        && (any_order || rev == RevOps::NONE || rev == RevOps::BOTH)
        && zero(s.reserved0())
        && zero(s.reserved1())
        && din.is_valid_dtype(false)
        && dout.is_valid_dtype(true)
        && s.op_dim() == TensorSubdim::XYZ
        && channels(n)
        && operand(gen, src, rw(din, false), n)
        && operand(gen, dst, rw(dout, true), n)
        && src.element_count() == dst.element_count()
}

/// `S2_BN` clauses every opcode of the struct shares (chains/imm_ld.rs `shared`).
#[inline(always)]
fn s2_bn_shared(gen: Gen, s: View<'_, S2Bn>) -> bool {
    let (src, d, n) = (s.src_mem_pattern(), s.dtype(), s.num_active_channels());
    d.is_valid_dtype(false)
        && zero(s.reserved0())
        && zero(s.reserved1())
        && zero(s.reserved2())
        && zero(s.reserved3())
        && channels(n)
        && operand(gen, src, rw(d, false), n)
}

/// `imm0_ptr == 0.0 && imm0_src == 0 && imm1 == 0.0`, compared as fp32.
#[inline(always)]
fn s2_bn_zero_immediates(s: View<'_, S2Bn>) -> bool {
    let fzero = |v: ImmVal| v.0 & 0x7FFF_FFFF == 0;
    fzero(s.imm0_ptr()) && s.imm0_src() == ImmSrc::INSTRUCTION && fzero(s.imm1())
}

/// `is_valid_tsm_immediates_load` (chains/imm_ld.rs `check`).
fn imm_ld(gen: Gen, info: &OpcodeInfo, s: View<'_, S2Bn>) -> bool {
    let t = s.src_mem_pattern();
    let cnt = u32::from(t.num_elem[0]) * u32::from(t.num_elem[1]);
    let escape = gen != Gen::Sunda && t.start_addr.shape_from_register();
    let d = s.dtype();
    ((1..=8).contains(&cnt) || escape)
        && s2_bn_zero_immediates(s)
        && if info.is_bitvec() {
            matches!(
                d,
                Dtype::UINT32 | Dtype::UINT16 | Dtype::UINT8 | Dtype::INT32
            )
        } else {
            d.is_valid_dtype(false)
        }
        && s2_bn_shared(gen, s)
}

/// `is_valid_batch_norm_param_load`.
fn batch_norm_param_load(gen: Gen, s: View<'_, S2Bn>) -> bool {
    let t = s.src_mem_pattern();
    u32::from(t.num_elem[0]) * u32::from(t.num_elem[1]) == 3
        && matches!(s.dtype(), Dtype::FP32 | Dtype::FP16 | Dtype::BFLOAT16)
        && s2_bn_shared(gen, s)
}

/// `is_valid_match_value_load`.
fn match_value_load(gen: Gen, s: View<'_, S2Bn>) -> bool {
    let t = s.src_mem_pattern();
    matches!(
        (t.num_elem[0], t.num_elem[1]),
        (1, 8) | (2, 4) | (4, 2) | (8, 1)
    ) && s2_bn_zero_immediates(s)
        && s2_bn_shared(gen, s)
}

/// `is_valid_s2d2_ts_as` (chains/affine_select.rs).
fn affine_select(gen: Gen, s: View<'_, S2d2TsAs>) -> bool {
    let n = s.num_active_channels();
    let pair = s.in_out_dtype();
    let (lo, hi) = (pair.lo(), pair.hi());
    let psum = gen == Gen::Sunda;
    let (src, dst, mask) = (s.src_mem_pattern(), s.dst_mem_pattern(), s.mask_pattern());
    let place = |dtype, write| Place {
        dtype,
        write,
        psum,
        sbuf: true,
    };
    let escape = gen != Gen::Sunda
        && (src.start_addr.shape_from_register() || dst.start_addr.shape_from_register());
    channels(n)
        && operand(gen, src, place(lo, false), n)
        && operand(gen, dst, place(hi, true), n)
        && (escape
            || (src.element_count() == dst.element_count()
                && mask.element_count() == src.element_count()))
        && hi.is_valid_dtype(true)
        && lo.is_valid_dtype(false)
        && s.fill_mode().defined_on(gen)
        && u32::from(s.fill_reg()) < NUM_REGISTERS
}

/// `is_valid_iota` (chains/iota.rs).
fn iota(gen: Gen, s: View<'_, D4Iota>) -> bool {
    let (dst, out, n) = (s.dst_mem_pattern(), s.out_dtype(), s.num_active_channels());
    zero(s.reserved0())
        && zero(s.reserved1())
        && zero(s.reserved2())
        && out.is_valid_dtype(true)
        && channels(n)
        && operand(gen, dst, rw(out, true), n)
        && s.src_data_pattern().element_count() == dst.element_count()
}

/// `is_valid_tensor_scalar_op` / `_ptr_op` (chains/tensor_scalar.rs).
fn tensor_scalar(gen: Gen, info: &OpcodeInfo, s: View<'_, S3d3Ts>) -> bool {
    let bitvec = info.is_bitvec();
    let (op0, op1) = (s.op0(), s.op1());
    let (din, dout, n) = (s.in_dtype(), s.out_dtype(), s.num_active_channels());
    let (imm0, imm1, imm0_src, imm1_src) = (s.imm0(), s.imm1(), s.imm0_src(), s.imm1_src());
    let ops = if bitvec {
        op0.is_bitvec_op() && op1.is_bitvec_op() && din == dout && din.is_int_datapath()
    } else {
        let general = op0.is_general_arith_op(gen) && op1.is_general_arith_op(gen);
        let rsqrt = op0 == AluOp::RSQRT
            && op1 == AluOp::BYPASS
            && imm0.0 == 0
            && imm0_src == ImmSrc::INSTRUCTION
            && imm1.0 == 0
            && imm1_src == ImmSrc::INSTRUCTION;
        let dve_int =
            gen == Gen::Maverick && op0.is_valid_int_aluop_dve() && op1.is_valid_int_aluop_dve();
        general || rsqrt || dve_int
    };
    let imms = if info.form == Form::Pointer {
        imm0_src.0 == 0
            && imm1_src.0 == 0
            && ptr_imm(gen, imm0, bitvec, din, n)
            && ptr_imm(gen, imm1, bitvec, din, n)
    } else {
        imm_by_src(gen, imm0_src, imm0, bitvec, din, n)
            && imm_by_src(gen, imm1_src, imm1, bitvec, din, n)
    };
    let shift_bad = (op0 == AluOp::ARITH_SHIFT_RIGHT || op1 == AluOp::ARITH_SHIFT_RIGHT)
        || (matches!(op0, AluOp::ARITH_SHIFT_LEFT | AluOp::LOGICAL_SHIFT_LEFT)
            && matches!(op1, AluOp::ARITH_SHIFT_RIGHT | AluOp::LOGICAL_SHIFT_RIGHT));
    let (src, dst) = (s.src_mem_pattern(), s.dst_mem_pattern());
    op0.defined_on(gen)
        && op1.defined_on(gen)
        && not_div_pow_mod(op0)
        && not_div_pow_mod(op1)
        && ops
        && (op0 != AluOp::BYPASS || op1 == AluOp::BYPASS)
        && imms
        && (!shift_bad || din.size() == Some(4))
        && operand(gen, src, rw(din, false), n)
        && operand(gen, dst, rw(dout, true), n)
        && src.element_count() == dst.element_count()
        && s.reverse_operands().defined_on(gen)
        && zero(s.reserved0())
        && din.is_valid_dtype(false)
        && dout.is_valid_dtype(true)
        && s.accumulator_cmd() == AccumCmd::IDLE
        && channels(n)
}

/// TensorScalarSelect (chains/ts_select.rs).
fn ts_select(gen: Gen, s: View<'_, S3d3TsSelect>) -> bool {
    let (d, p, n) = (s.dtype(), s.pred_imm_dtype(), s.num_active_channels());
    let pred = match s.pred_imm_src() {
        ImmSrc::INSTRUCTION => s.pred_imm().0 <= 1,
        src => imm_by_src(gen, src, s.pred_imm(), true, p, n),
    };
    let src1 = match s.src1_imm_src() {
        ImmSrc::INSTRUCTION => true,
        src => imm_by_src(gen, src, s.src1_imm(), true, d, n),
    };
    let (src, dst) = (s.src0_mem_pattern(), s.dst_mem_pattern());
    d.is_valid_dtype(false)
        && p.is_int_datapath()
        && p.size() == d.size()
        && s.reversed_pred() <= 1
        && pred
        && src1
        && zero(s.reserved0())
        && zero(s.reserved1())
        && channels(n)
        && operand(gen, src, rw(d, false), n)
        && operand(gen, dst, rw(d, true), n)
        && src.element_count() == dst.element_count()
}

/// RangeSelect (chains/range_select.rs).
fn range_select(gen: Gen, s: View<'_, S2d2Rs>) -> bool {
    let (src, dst, n) = (
        s.src_mem_pattern(),
        s.dst_mem_pattern(),
        s.num_active_channels(),
    );
    let pair = s.in_out_dtype();
    let (lo, hi) = (pair.lo(), pair.hi());
    let bound = |src_kind: ImmSrc, v: ImmVal| {
        src_kind == ImmSrc::INSTRUCTION || imm_by_src(gen, src_kind, v, false, Dtype::FP32, n)
    };
    gen != Gen::Sunda
        && matches!(
            s.reduce_cmd(),
            AccumCmd::IDLE | AccumCmd::ACCUMULATE | AccumCmd::ZERO_ACCUMULATE
        )
        && s.reduce_op() == AluOp::MAX
        && s.fill_val().0 == 0xFF7F_FFFF
        && f64::from(s.base().value()) + src.element_count() as f64 <= 16_777_216.0
        && matches!(s.comp_op0().0, 0x12..=0x16)
        && matches!(s.comp_op1().0, 0x12..=0x16)
        && lo.is_fp_datapath(false)
        && hi.is_fp_datapath(true)
        && channels(n)
        && operand(gen, src, rw(lo, false), n)
        && operand(gen, dst, rw(hi, true), n)
        && src.element_count() == dst.element_count()
        && bound(s.bound0_src(), s.bound0())
        && bound(s.bound1_src(), s.bound1())
        && zero(s.reserved1())
}

/// EventSemaphore (chains/event_semaphore.rs).
fn event_semaphore(gen: Gen, v: &InstView<'_>, s: View<'_, EventSemaphore>) -> bool {
    let e = v.events();
    s.wait1_mode().defined_on(gen)
        && s.update1_mode().defined_on(gen)
        && e.update_mode() == UpdateMode::NONE
        && e.update_idx() == 0
        && zero(s.reserved0())
        && zero(s.reserved1())
}
