//! The opcode table: one row per opcode, declared once (isa-facts §1.2, seeds 000/002).

use crate::gen::{Gen, GenSet};
use std::fmt;

/// The 64-byte operand struct an opcode binds (`struct2opcode`, instruction_mapping.json).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StructKind {
    /// `S4D4_TSM`: TensorScalarPtrMulti (seed 000 §4).
    S4d4Tsm,
    /// `S2_BN`: TensorScalarImmLd (isa-facts §6).
    S2Bn,
    /// `S2D2_TS_AS`: AffineSelect (seed 002 §3).
    S2d2TsAs,
    /// `D4_IOTA`: Iota (isa-facts §9).
    D4Iota,
    /// `S3D3_TS`: TensorScalar / TensorScalarPtr (isa-facts §7).
    S3d3Ts,
    /// `S3D3_TS_SELECT`: TensorScalarSelect (isa-facts §10.1).
    S3d3TsSelect,
    /// `S2D2_RS`: RangeSelect (isa-facts §10.2).
    S2d2Rs,
}

impl StructKind {
    /// The header struct name.
    pub const fn header_name(self) -> &'static str {
        match self {
            StructKind::S4d4Tsm => "S4D4_TSM",
            StructKind::S2Bn => "S2_BN",
            StructKind::S2d2TsAs => "S2D2_TS_AS",
            StructKind::D4Iota => "D4_IOTA",
            StructKind::S3d3Ts => "S3D3_TS",
            StructKind::S3d3TsSelect => "S3D3_TS_SELECT",
            StructKind::S2d2Rs => "S2D2_RS",
        }
    }
}

/// The engine that executes an opcode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Engine {
    /// Vector engine (`DVE_NUM_CHANNELS`).
    Dve,
    /// GpSimd / POOL engine (`POOLING_NUM_CHANNELS`).
    Pool,
}

/// The header's maintenance flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Maintenance {
    /// `// Y`: maintained.
    Maintained,
    /// `// n, use … instead`: deprecated but with a working worker.
    DeprecatedWorking,
    /// `// n, ucode/kaenadve exists, not maintained/used`: a log-only stub in firmware.
    NotMaintained,
}

/// One opcode row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpcodeInfo {
    /// Wire value (byte 0).
    pub value: u8,
    /// Header enumerator name without the `NEURON_ISA_TPB_OPCODE_` prefix.
    pub header_name: &'static str,
    /// The instruction's readable name (firmware self-name).
    pub display: &'static str,
    /// The assembler mnemonic.
    pub mnemonic: &'static str,
    /// The operand struct.
    pub kind: StructKind,
    /// The executing engine.
    pub engine: Engine,
    /// The maintenance flag.
    pub maintenance: Maintenance,
    /// The generations whose opcode enum defines the value.
    pub gens: GenSet,
    /// Where the facts come from.
    pub source: &'static str,
}

use Engine::{Dve, Pool};
use Maintenance::{DeprecatedWorking, Maintained, NotMaintained};
use StructKind::*;

macro_rules! opcodes {
    ($( $C:ident = $v:literal, $hn:literal, $disp:literal, $mn:literal, $k:ident, $e:ident, $m:ident, $g:expr, $src:literal; )*) => {
        impl Opcode {
            $( #[doc = $disp] pub const $C: Opcode = Opcode($v); )*
        }
        /// Every modelled opcode, in value order.
        pub const OPCODES: &[OpcodeInfo] = &[
            $( OpcodeInfo { value: $v, header_name: $hn, display: $disp, mnemonic: $mn, kind: $k,
                            engine: $e, maintenance: $m, gens: $g, source: $src }, )*
        ];
    };
}

/// An opcode byte. Any value is representable; [`Opcode::info`] says whether tpb models it.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Opcode(pub u8);

opcodes! {
    TENSOR_SCALAR_ARITH = 0x43, "TENSOR_SCALAR_ARITH_OP", "TensorScalarArith", "ts_arith", S3d3Ts, Dve, Maintained, GenSet::ALL, "isa-facts §7";
    TENSOR_SCALAR_PTR_ARITH = 0x44, "TENSOR_SCALAR_PTR_ARITH_OP", "TensorScalarPtrArith", "ts_ptr_arith", S3d3Ts, Dve, DeprecatedWorking, GenSet::ALL, "isa-facts §7";
    TENSOR_SCALAR_PTR_MULTI_ARITH = 0x4F, "TENSOR_SCALAR_PTR_MULTI_ARITH", "TensorScalarPtrMultiArith", "ptr_multi_arith", S4d4Tsm, Dve, NotMaintained, GenSet::ALL, "seed 000 §3";
    TENSOR_SCALAR_BITVEC = 0x53, "TENSOR_SCALAR_BITVEC_OP", "TensorScalarBitvec", "ts_bitvec", S3d3Ts, Dve, Maintained, GenSet::ALL, "isa-facts §7";
    TENSOR_SCALAR_PTR_BITVEC = 0x54, "TENSOR_SCALAR_PTR_BITVEC_OP", "TensorScalarPtrBitvec", "ts_ptr_bitvec", S3d3Ts, Dve, DeprecatedWorking, GenSet::ALL, "isa-facts §7";
    TENSOR_SCALAR_PTR_MULTI_BITVEC = 0x5F, "TENSOR_SCALAR_PTR_MULTI_BITVEC", "TensorScalarPtrMultiBitvec", "ptr_multi_bitvec", S4d4Tsm, Dve, NotMaintained, GenSet::ALL, "seed 000 §3";
    TENSOR_SCALAR_IMM_LD_ARITH = 0x70, "TENSOR_SCALAR_IMM_LD_ARITH", "TensorScalarImmLdArith", "imm_ld_arith", S2Bn, Dve, NotMaintained, GenSet::ALL, "isa-facts §6";
    TENSOR_SCALAR_IMM_LD_BITVEC = 0x71, "TENSOR_SCALAR_IMM_LD_BITVEC", "TensorScalarImmLdBitvec", "imm_ld_bitvec", S2Bn, Dve, NotMaintained, GenSet::ALL, "isa-facts §6";
    IOTA = 0x7E, "IOTA", "Iota", "iota", D4Iota, Pool, Maintained, GenSet::ALL, "isa-facts §9";
    TENSOR_SCALAR_PTR_MULTI_DUAL_ARITH = 0x87, "TENSOR_SCALAR_PTR_MULTI_DUAL_ARITH", "TensorScalarPtrMultiDualArith", "ptr_multi_dual_arith", S4d4Tsm, Dve, NotMaintained, GenSet::SUNDA, "seed 000 §3, isa-facts §8";
    TENSOR_SCALAR_PTR_MULTI_DUAL_BITVEC = 0x88, "TENSOR_SCALAR_PTR_MULTI_DUAL_BITVEC", "TensorScalarPtrMultiDualBitvec", "ptr_multi_dual_bitvec", S4d4Tsm, Dve, NotMaintained, GenSet::SUNDA, "seed 000 §3, isa-facts §8";
    TENSOR_SCALAR_AFFINE_SELECT = 0x92, "TENSOR_SCALAR_AFFINE_SELECT", "TensorScalarAffineSelect", "affine_select", S2d2TsAs, Pool, Maintained, GenSet::ALL, "seed 002 §3";
    TENSOR_SCALAR_SELECT = 0x98, "TENSOR_SCALAR_SELECT", "TensorScalarSelect", "ts_select", S3d3TsSelect, Dve, Maintained, GenSet::ALL, "isa-facts §10.1";
    RANGE_SELECT = 0xBC, "RANGE_SELECT", "RangeSelect", "range_select", S2d2Rs, Dve, Maintained, GenSet::CAYMAN_UP, "isa-facts §10.2";
}

/// Opcodes a source names that tpb does not model (they decode as opaque bundles).
pub const KNOWN_UNMODELLED: &[(u8, &str)] = &[
    (0x30, "Exponential"),
    (0x41, "TensorTensorArith"),
    (0x51, "TensorTensorBitvec"),
    (0x64, "BatchNormParamLoad"),
    (0x68, "Gather"),
    (0x6D, "MatchValueLoad"),
    (0x93, "TransposeTensorScalarArith"),
    (0x9A, "TensorScalarCacheReduce"),
    (0xA0, "EventSemaphore"),
    (0xE3, "QuantizeMx"),
    (0xE6, "TensorScalarCacheCumulative"),
];

const INDEX: [u8; 256] = {
    let mut m = [u8::MAX; 256];
    let mut i = 0;
    while i < OPCODES.len() {
        m[OPCODES[i].value as usize] = i as u8;
        i += 1;
    }
    m
};

impl Opcode {
    /// The table row, if tpb models this opcode on any generation.
    #[inline]
    pub fn row(self) -> Option<&'static OpcodeInfo> {
        OPCODES.get(INDEX[self.0 as usize] as usize)
    }

    /// The table row if the opcode is defined on `gen` (0x87/0x88 exist only on sunda;
    /// RangeSelect only from cayman). Decoding uses this (decisions §1.6).
    #[inline]
    pub fn info(self, gen: Gen) -> Option<&'static OpcodeInfo> {
        self.row().filter(|r| r.gens.contains(gen))
    }

    /// Looks up an assembler mnemonic, display name or header name (case-insensitive).
    pub fn from_mnemonic(s: &str) -> Option<Opcode> {
        let l = s.trim().to_ascii_lowercase();
        OPCODES
            .iter()
            .find(|r| {
                r.mnemonic == l
                    || r.display.eq_ignore_ascii_case(&l)
                    || r.header_name.eq_ignore_ascii_case(&l)
            })
            .map(|r| Opcode(r.value))
    }

    /// A readable name for any value: the modelled name, a known unmodelled name, or hex.
    pub fn describe(self) -> String {
        if let Some(r) = self.row() {
            return r.display.to_string();
        }
        match KNOWN_UNMODELLED.iter().find(|(v, _)| *v == self.0) {
            Some((_, n)) => format!("{n} (not modelled)"),
            None => format!("unknown opcode {:#04x}", self.0),
        }
    }
}

impl fmt::Display for Opcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#04x}", self.0)
    }
}

impl fmt::Debug for Opcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Opcode({:#04x})", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // seed 000 §3: opcode values are identical on every generation; Dual is sunda-only.
    #[test]
    fn seed000_opcode_values() {
        assert_eq!(Opcode::TENSOR_SCALAR_PTR_MULTI_ARITH.0, 0x4F);
        assert_eq!(Opcode::TENSOR_SCALAR_PTR_MULTI_BITVEC.0, 0x5F);
        assert_eq!(Opcode::TENSOR_SCALAR_IMM_LD_ARITH.0, 0x70);
        assert_eq!(Opcode::TENSOR_SCALAR_IMM_LD_BITVEC.0, 0x71);
        assert!(Opcode(0x87).info(Gen::Sunda).is_some());
        for g in [Gen::Cayman, Gen::Mariana, Gen::Maverick] {
            assert!(Opcode(0x87).info(g).is_none());
            assert!(Opcode(0x88).info(g).is_none());
        }
        assert!(Opcode(0xBC).info(Gen::Sunda).is_none());
        assert_eq!(Opcode::from_mnemonic("AFFINE_SELECT"), Some(Opcode(0x92)));
    }

    #[test]
    fn table_is_sorted_and_unique() {
        assert!(OPCODES.windows(2).all(|w| w[0].value < w[1].value));
        let mut m: Vec<_> = OPCODES.iter().map(|r| r.mnemonic).collect();
        m.sort();
        m.dedup();
        assert_eq!(m.len(), OPCODES.len());
    }
}
