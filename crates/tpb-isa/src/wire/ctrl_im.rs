//! `NEURON_ISA_TPB_CTRL_IM_STRUCT`: LoadMaskSelect 0x69 (shared with LoadParameterRam 0x66,
//! LoadPoolArgument 0x7a and EngineNop 0x9f, which tpb does not model). Byte map:
//! `docs/reference/isa-dve-state.md` "CTRL_IM" (isa-facts-dve-pool §14.2).

use super::field::Bytes;
use super::wire_struct;

wire_struct! {
    /// `NEURON_ISA_TPB_CTRL_IM_STRUCT` (isa-facts-dve-pool §14.2).
    pub struct CtrlIm, bytes 12..64 {
        /// Bytes 12..14: the u16 `param_ram_offset`; must be 0 for LoadMaskSelect (kept as bytes).
        param_ram_offset: Bytes<2> = 12,
        /// Byte 14: must be 0.
        imm_ptr_select: u8 = 14,
        /// Bytes 15..32: must be 0.
        reserved0: Bytes<17> = 15,
        /// Bytes 32..64: `MOVE_IMMEDIATE`; for LoadMaskSelect the 32 lane-select bytes.
        immediate: Bytes<32> = 32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // isa-facts-dve-pool §14.2: param_ram_offset@12 imm_ptr_select@14 reserved0@15 immediate@32.
    #[test]
    fn ctrl_im_offsets() {
        let o: Vec<_> = CtrlIm::LAYOUT.iter().map(|f| (f.offset, f.size)).collect();
        assert_eq!(o, [(12, 2), (14, 1), (15, 17), (32, 32)]);
        let mut b = [0u8; 64];
        for (i, x) in b[32..64].iter_mut().enumerate() {
            *x = 31 - i as u8;
        }
        let s = CtrlIm::parse(&b);
        assert_eq!(s.immediate.0[0], 31);
        let mut out = [0u8; 64];
        s.emit(&mut out);
        assert_eq!(out, b);
    }
}
