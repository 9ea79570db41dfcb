//! The bundle preamble (HEADER, EVENTS) and the seven modelled operand structs.
//! Offsets are the gcc `offsetof` output the seeds and fact sheets quote; the
//! `wire_struct!` macro checks at compile time that the fields tile the bundle.

use super::descriptor::{Data4d, DtypePair, F32Bits, ImmVal, Tensor2, Tensor3, Tensor4};
use super::field::{parse_int, Bytes, Field};
use super::wire_struct;
use crate::gen::Gen;
use crate::opcode::Opcode;
use crate::tables::{
    AccumCmd, AffineSelectCmp, AluOp, DebugCmd, Dtype, ImmSrc, RevOps, TensorSubdim, UpdateMode,
    WaitMode,
};

/// The only legal `inst_word_len`: 16 dwords (isa-facts §1.2).
pub const INST_WORD_LEN: u8 = 0x10;

impl Field for Opcode {
    const SIZE: usize = 1;
    #[inline(always)]
    fn text_ref(&self) -> crate::wire::field::TextRef<'_> {
        crate::wire::field::TextRef::Opcode(*self)
    }
    #[inline]
    fn read(b: &[u8]) -> Self {
        Opcode(u8::read(b))
    }
    #[inline]
    fn write(&self, b: &mut [u8]) {
        self.0.write(b)
    }
    fn to_text(&self, _: Gen) -> String {
        format!("{:#04x}", self.0)
    }
    fn parse_text(s: &str, _: Gen) -> Result<Self, String> {
        if let Some(o) = Opcode::from_mnemonic(s) {
            return Ok(o);
        }
        parse_int(s)
            .and_then(|v| u8::try_from(v).ok())
            .map(Opcode)
            .ok_or_else(|| format!("`{s}` is not an opcode"))
    }
    fn parts(&self, gen: Gen) -> Vec<(String, usize, usize, String)> {
        let name = match self.info(gen) {
            Some(r) => r.display.to_string(),
            None if self.row().is_some() => format!("{} (not defined on {gen})", self.describe()),
            None => self.describe(),
        };
        vec![(String::new(), 0, 1, format!("{:#04x} {name}", self.0))]
    }
    fn expected() -> String {
        "an opcode mnemonic or byte".into()
    }
}

wire_struct! {
    /// `NEURON_ISA_TPB_HEADER` (bytes 0..4).
    pub struct Header, bytes 0..4 {
        /// Byte 0: the opcode.
        opcode: Opcode = 0,
        /// Byte 1: must be 0x10 (16 dwords).
        inst_word_len: u8 = 1,
        /// Byte 2: `DEBUG_CMD_LEVELS`, kept as-is.
        debug_cmd: DebugCmd = 2,
        /// Byte 3: trace hint, kept as-is.
        debug_hint: u8 = 3,
    }
}

wire_struct! {
    /// `NEURON_ISA_TPB_EVENTS` (bytes 4..12): a pre-execute wait and a post-execute update.
    pub struct Events, bytes 4..12 {
        /// Byte 4: `WAIT_MODE`.
        wait_mode: WaitMode = 4,
        /// Byte 5: semaphore/event index waited on.
        wait_idx: u8 = 5,
        /// Byte 6: `UPDATE_MODE`.
        update_mode: UpdateMode = 6,
        /// Byte 7: semaphore/event index updated.
        update_idx: u8 = 7,
        /// Bytes 8..12: the value shared by wait and update.
        semaphore_value: u32 = 8,
    }
}

wire_struct! {
    /// `NEURON_ISA_TPB_S4D4_TSM_STRUCT` — TensorScalarPtrMulti (seed 000 §4, s4d4_tsm.h:110).
    pub struct S4d4Tsm, bytes 12..64 {
        /// Bytes 12..32: `TENSOR4D`; `num_elem[3]` is W, the scalar index.
        src_mem_pattern: Tensor4 = 12,
        /// Byte 32.
        in_dtype: Dtype = 32,
        /// Byte 33.
        out_dtype: Dtype = 33,
        /// Byte 34: partitions 1..=128.
        num_active_channels: u8 = 34,
        /// Byte 35: must be 0.
        reserved0: Bytes<1> = 35,
        /// Byte 36: the single ALU op.
        op: AluOp = 36,
        /// Byte 37: must be XYZ.
        op_dim: TensorSubdim = 37,
        /// Byte 38: None or Both (any for the sunda Dual Arith).
        reverse_operands: RevOps = 38,
        /// Bytes 39..44: must be 0 (five bytes; the header comment's "6" is a typo).
        reserved1: Bytes<5> = 39,
        /// Bytes 44..64: `TENSOR4D` destination.
        dst_mem_pattern: Tensor4 = 44,
    }
}

wire_struct! {
    /// EventSemaphore (0xA0), the standalone sync record (isa-facts §1.3; reference
    /// `docs/reference/isa.md` "EventSemaphore"): wait 0 is the EVENTS preamble's wait
    /// (+4/+5/+8); wait 1 and the update (`update1_*`, so that its names differ from the
    /// preamble's `update_*`, which must be none) live in the body with their own values.
    pub struct EventSemaphore, bytes 12..64 {
        /// Bytes 12..32: must be 0 (no field is known there).
        reserved0: Bytes<20> = 12,
        /// Byte 0x20: the second wait's `WAIT_MODE`.
        wait1_mode: WaitMode = 32,
        /// Byte 0x21: the second wait's semaphore/event index.
        wait1_idx: u8 = 33,
        /// Byte 0x22: the update's `UPDATE_MODE`.
        update1_mode: UpdateMode = 34,
        /// Byte 0x23: the updated semaphore/event index.
        update1_idx: u8 = 35,
        /// Bytes 0x24..0x28: the second wait's value.
        wait1_value: u32 = 36,
        /// Bytes 0x28..0x2c: the update's value.
        update1_value: u32 = 40,
        /// Bytes 44..64: must be 0.
        reserved1: Bytes<20> = 44,
    }
}

wire_struct! {
    /// `NEURON_ISA_TPB_S2_BN_STRUCT` — TensorScalarImmLd (isa-facts §6).
    pub struct S2Bn, bytes 12..64 {
        /// Bytes 12..16: must be 0.
        reserved0: Bytes<4> = 12,
        /// Bytes 16..28: `TENSOR2D` of the values to load.
        src_mem_pattern: Tensor2 = 16,
        /// Bytes 28..32: must be 0 for ImmLd.
        imm1: ImmVal = 28,
        /// Byte 32: load dtype.
        dtype: Dtype = 32,
        /// Byte 33: must be 0.
        reserved1: Bytes<1> = 33,
        /// Byte 34: partitions 1..=128.
        num_active_channels: u8 = 34,
        /// Bytes 35..44: must be 0.
        reserved2: Bytes<9> = 35,
        /// Bytes 44..48: must be 0 for ImmLd.
        imm0_ptr: ImmVal = 44,
        /// Byte 48: must be 0 for ImmLd.
        imm0_src: ImmSrc = 48,
        /// Bytes 49..64: must be 0.
        reserved3: Bytes<15> = 49,
    }
}

wire_struct! {
    /// `NEURON_ISA_TPB_S2D2_TS_AS_STRUCT` — AffineSelect (seed 002 §3, s2d2_ts_as.h:53).
    pub struct S2d2TsAs, bytes 12..64 {
        /// Byte 12: partitions 1..=128.
        num_active_channels: u8 = 12,
        /// Byte 13: input (low nibble) and output (high nibble) dtypes.
        in_out_dtype: DtypePair = 13,
        /// Byte 14: how the mask is compared with 0.
        fill_mode: AffineSelectCmp = 14,
        /// Byte 15: register holding the FP32 fill value.
        fill_reg: u8 = 15,
        /// Bytes 16..36: `DATA4D` affine mask generator (no memory read).
        mask_pattern: Data4d = 16,
        /// Bytes 36..48: `TENSOR2D` input.
        src_mem_pattern: Tensor2 = 36,
        /// Bytes 48..60: `TENSOR2D` output.
        dst_mem_pattern: Tensor2 = 48,
        /// Bytes 60..64: added once per channel to the mask.
        channel_multiplier: i32 = 60,
    }
}

wire_struct! {
    /// `NEURON_ISA_TPB_D4_IOTA_STRUCT` — Iota (isa-facts §9).
    pub struct D4Iota, bytes 12..64 {
        /// Bytes 12..32: `DATA4D` ramp generator.
        src_data_pattern: Data4d = 12,
        /// Byte 32: must be 0.
        reserved0: Bytes<1> = 32,
        /// Byte 33.
        out_dtype: Dtype = 33,
        /// Byte 34: partitions 1..=128.
        num_active_channels: u8 = 34,
        /// Byte 35: must be 0.
        reserved1: Bytes<1> = 35,
        /// Bytes 36..40: added once per channel to the ramp.
        channel_multiplier: i32 = 36,
        /// Bytes 40..44: must be 0.
        reserved2: Bytes<4> = 40,
        /// Bytes 44..64: `TENSOR4D` destination.
        dst_mem_pattern: Tensor4 = 44,
    }
}

wire_struct! {
    /// `NEURON_ISA_TPB_S3D3_TS_STRUCT` — TensorScalar / TensorScalarPtr (isa-facts §7).
    pub struct S3d3Ts, bytes 12..64 {
        /// Byte 12: must be Idle for 0x43/0x53/0x44/0x54.
        accumulator_cmd: AccumCmd = 12,
        /// Bytes 13..16: must be 0.
        reserved0: Bytes<3> = 13,
        /// Bytes 16..32: `TENSOR3D` / `MEM_PATTERN3D` source.
        src_mem_pattern: Tensor3 = 16,
        /// Byte 32.
        in_dtype: Dtype = 32,
        /// Byte 33.
        out_dtype: Dtype = 33,
        /// Byte 34: partitions 1..=128.
        num_active_channels: u8 = 34,
        /// Byte 35: where imm0 comes from.
        imm0_src: ImmSrc = 35,
        /// Byte 36.
        op0: AluOp = 36,
        /// Byte 37.
        op1: AluOp = 37,
        /// Byte 38.
        reverse_operands: RevOps = 38,
        /// Byte 39: where imm1 comes from.
        imm1_src: ImmSrc = 39,
        /// Bytes 40..44.
        imm0: ImmVal = 40 [fp32 when imm0_src],
        /// Bytes 44..48.
        imm1: ImmVal = 44 [fp32 when imm1_src],
        /// Bytes 48..64: `TENSOR3D` / `MEM_PATTERN3D` destination.
        dst_mem_pattern: Tensor3 = 48,
    }
}

wire_struct! {
    /// `NEURON_ISA_TPB_S3D3_TS_SELECT_STRUCT` — TensorScalarSelect (isa-facts §10.1).
    pub struct S3d3TsSelect, bytes 12..64 {
        /// Bytes 12..16: must be 0.
        reserved0: Bytes<4> = 12,
        /// Bytes 16..32: `TENSOR3D` src0.
        src0_mem_pattern: Tensor3 = 16,
        /// Byte 32: 0 or 1.
        reversed_pred: u8 = 32,
        /// Byte 33: partitions 1..=128.
        num_active_channels: u8 = 33,
        /// Byte 34: one dtype for src0, src1 and dst.
        dtype: Dtype = 34,
        /// Byte 35: dtype of a pointer-sourced predicate.
        pred_imm_dtype: Dtype = 35,
        /// Bytes 36..38: must be 0.
        reserved1: Bytes<2> = 36,
        /// Byte 38.
        src1_imm_src: ImmSrc = 38,
        /// Byte 39.
        pred_imm_src: ImmSrc = 39,
        /// Bytes 40..44: the src1 scalar.
        src1_imm: ImmVal = 40,
        /// Bytes 44..48: the predicate.
        pred_imm: ImmVal = 44,
        /// Bytes 48..64: `TENSOR3D` destination.
        dst_mem_pattern: Tensor3 = 48,
    }
}

wire_struct! {
    /// `NEURON_ISA_TPB_S2D2_RS_STRUCT` — RangeSelect (isa-facts §10.2).
    pub struct S2d2Rs, bytes 12..64 {
        /// Byte 12: partitions 1..=128.
        num_active_channels: u8 = 12,
        /// Byte 13: input (low) / output (high) dtypes.
        in_out_dtype: DtypePair = 13,
        /// Byte 14: Idle, Accumulate or ZeroAccumulate.
        reduce_cmd: AccumCmd = 14,
        /// Byte 15: must be Max.
        reduce_op: AluOp = 15,
        /// Bytes 16..20: FP32 index base.
        base: F32Bits = 16,
        /// Bytes 20..24: FP32 fill; must be −FLT_MAX.
        fill_val: F32Bits = 20,
        /// Bytes 24..36: `TENSOR2D` source.
        src_mem_pattern: Tensor2 = 24,
        /// Byte 36: a compare op (0x12..0x16).
        comp_op0: AluOp = 36,
        /// Byte 37: a compare op (0x12..0x16).
        comp_op1: AluOp = 37,
        /// Byte 38.
        bound0_src: ImmSrc = 38,
        /// Byte 39.
        bound1_src: ImmSrc = 39,
        /// Bytes 40..44: FP32 bound (or pointer/register).
        bound0: ImmVal = 40 [fp32 when bound0_src],
        /// Bytes 44..48.
        bound1: ImmVal = 44 [fp32 when bound1_src],
        /// Bytes 48..60: `TENSOR2D` destination.
        dst_mem_pattern: Tensor2 = 48,
        /// Bytes 60..64: must be 0.
        reserved1: Bytes<4> = 60,
    }
}

wire_struct! {
    /// The body of an opcode tpb does not model: bytes 12..64 kept verbatim.
    pub struct Opaque, bytes 12..64 {
        /// Bytes 12..64.
        raw: Bytes<52> = 12,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{Body, Instruction};

    fn offsets(l: &[crate::wire::FieldMeta]) -> Vec<(&str, usize)> {
        l.iter().map(|f| (f.name, f.offset)).collect()
    }

    // seed 000 §4: gcc offsetof output, identical on all four generations.
    #[test]
    fn seed000_s4d4_tsm_offsets() {
        assert_eq!(
            offsets(S4d4Tsm::LAYOUT),
            [
                ("src_mem_pattern", 12),
                ("in_dtype", 32),
                ("out_dtype", 33),
                ("num_active_channels", 34),
                ("reserved0", 35),
                ("op", 36),
                ("op_dim", 37),
                ("reverse_operands", 38),
                ("reserved1", 39),
                ("dst_mem_pattern", 44)
            ]
        );
        assert_eq!(
            S4d4Tsm::LAYOUT[8].size,
            5,
            "reserved1 is five bytes (39..43)"
        );
    }

    // seed 002 §3: gcc offsetof output for S2D2_TS_AS.
    #[test]
    fn seed002_s2d2_ts_as_offsets() {
        assert_eq!(
            offsets(S2d2TsAs::LAYOUT),
            [
                ("num_active_channels", 12),
                ("in_out_dtype", 13),
                ("fill_mode", 14),
                ("fill_reg", 15),
                ("mask_pattern", 16),
                ("src_mem_pattern", 36),
                ("dst_mem_pattern", 48),
                ("channel_multiplier", 60)
            ]
        );
    }

    // isa-facts §6, §7, §9, §10: the other struct tables.
    #[test]
    fn fact_sheet_struct_offsets() {
        let o = |l| offsets(l).into_iter().map(|(_, o)| o).collect::<Vec<_>>();
        assert_eq!(o(S2Bn::LAYOUT), [12, 16, 28, 32, 33, 34, 35, 44, 48, 49]);
        assert_eq!(o(D4Iota::LAYOUT), [12, 32, 33, 34, 35, 36, 40, 44]);
        assert_eq!(
            o(S3d3Ts::LAYOUT),
            [12, 13, 16, 32, 33, 34, 35, 36, 37, 38, 39, 40, 44, 48]
        );
        assert_eq!(
            o(S3d3TsSelect::LAYOUT),
            [12, 16, 32, 33, 34, 35, 36, 38, 39, 40, 44, 48]
        );
        assert_eq!(
            o(S2d2Rs::LAYOUT),
            [12, 13, 14, 15, 16, 20, 24, 36, 37, 38, 39, 40, 44, 48, 60]
        );
        assert_eq!(o(Events::LAYOUT), [4, 5, 6, 7, 8]);
    }

    /// A hand-built PtrMultiArith bundle, checked field by field (seed 000 §4–§5).
    #[test]
    fn golden_ptr_multi_arith_bundle() {
        let mut b = [0u8; 64];
        b[0] = Opcode::TENSOR_SCALAR_PTR_MULTI_ARITH.0;
        b[1] = 0x10;
        // src TENSOR4D @12: sbuf partition 0 offset 0x100, steps [1,4,16,64], nums [4,4,4,8]
        b[12..16].copy_from_slice(&0x100u32.to_le_bytes());
        for (i, s) in [1i16, 4, 16, 64].iter().enumerate() {
            b[16 + 2 * i..18 + 2 * i].copy_from_slice(&s.to_le_bytes());
        }
        for (i, n) in [4u16, 4, 4, 8].iter().enumerate() {
            b[24 + 2 * i..26 + 2 * i].copy_from_slice(&n.to_le_bytes());
        }
        b[32] = 0x0A; // fp32
        b[33] = 0x06; // bf16
        b[34] = 128;
        b[36] = 0x06; // mult
        b[37] = 0x04; // XYZ
        b[38] = 3; // Both
        b[44..48].copy_from_slice(&0x2000u32.to_le_bytes());
        let i = Instruction::decode(&b, Gen::Cayman);
        let Body::S4d4Tsm(s) = i.body else {
            panic!("wrong body {:?}", i.body)
        };
        assert_eq!(i.header.opcode, Opcode::TENSOR_SCALAR_PTR_MULTI_ARITH);
        assert_eq!(i.header.inst_word_len, 0x10);
        assert_eq!(s.src_mem_pattern.start_addr.0, 0x100);
        assert_eq!(s.src_mem_pattern.step_elem, [1, 4, 16, 64]);
        assert_eq!(s.src_mem_pattern.num_elem, [4, 4, 4, 8]);
        assert_eq!((s.in_dtype, s.out_dtype), (Dtype::FP32, Dtype::BFLOAT16));
        assert_eq!(s.num_active_channels, 128);
        assert_eq!(
            (s.op, s.op_dim, s.reverse_operands),
            (AluOp::MULT, TensorSubdim::XYZ, RevOps::BOTH)
        );
        assert_eq!(s.dst_mem_pattern.start_addr.0, 0x2000);
        assert_eq!(s.dst_mem_pattern.num_elem, [0, 0, 0, 0]);
        assert_eq!(i.encode(), b);
    }

    /// A hand-built AffineSelect bundle: the nki-library causal mask (seed 002 §8 NOTE).
    #[test]
    fn golden_affine_select_bundle() {
        let mut b = [0u8; 64];
        b[0] = Opcode::TENSOR_SCALAR_AFFINE_SELECT.0;
        b[1] = 0x10;
        b[12] = 128;
        b[13] = 0x6A; // in fp32 (lo), out bf16 (hi)
        b[14] = 1; // GE
        b[15] = 7; // fill register
        b[16..20].copy_from_slice(&0i32.to_le_bytes());
        b[20..22].copy_from_slice(&(-1i16).to_le_bytes());
        b[28..30].copy_from_slice(&512u16.to_le_bytes());
        b[60..64].copy_from_slice(&1i32.to_le_bytes());
        let i = Instruction::decode(&b, Gen::Sunda);
        let Body::S2d2TsAs(s) = i.body else { panic!() };
        assert_eq!(s.num_active_channels, 128);
        assert_eq!(
            (s.in_out_dtype.lo(), s.in_out_dtype.hi()),
            (Dtype::FP32, Dtype::BFLOAT16)
        );
        assert_eq!(s.fill_mode, AffineSelectCmp::GREATER_THAN_EQ);
        assert_eq!(s.fill_reg, 7);
        assert_eq!(s.mask_pattern.step_elem[0], -1);
        assert_eq!(s.mask_pattern.num_elem[0], 512);
        assert_eq!(s.channel_multiplier, 1);
        assert_eq!(i.encode(), b);
    }

    // decisions §1.6: 0x87 is a PtrMulti struct on sunda, opaque elsewhere; both round-trip.
    #[test]
    fn dual_opcode_decodes_per_gen() {
        let mut b = [0xA5u8; 64];
        b[0] = Opcode::TENSOR_SCALAR_PTR_MULTI_DUAL_ARITH.0;
        assert!(matches!(
            Instruction::decode(&b, Gen::Sunda).body,
            Body::S4d4Tsm(_)
        ));
        assert!(matches!(
            Instruction::decode(&b, Gen::Cayman).body,
            Body::Opaque(_)
        ));
        for g in Gen::ALL {
            assert_eq!(Instruction::decode(&b, g).encode(), b);
        }
    }
}
