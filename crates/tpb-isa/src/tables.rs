//! The ISA's enumerations, declared once as data.
//!
//! Every enumeration is a lossless newtype over its wire byte: unknown values are kept
//! (decisions §1.1). Each row says which generations define the value; per-generation
//! legality is derived from these rows and nowhere else (decisions §1.6).

use crate::gen::{Gen, GenSet};
use std::fmt;

/// One row of an enumeration table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EnumRow {
    /// The wire value.
    pub value: u8,
    /// The canonical text name (lowercase, header name without its prefix).
    pub name: &'static str,
    /// The generations whose headers define this value.
    pub gens: GenSet,
    /// Extra names the assembler accepts.
    pub aliases: &'static [&'static str],
}

/// Behaviour shared by every table-driven enumeration (used by text syntax and reports).
pub trait CodeEnum: Copy + Sized + 'static {
    /// The enumeration's header name, e.g. `DTYPE`.
    const KIND: &'static str;
    /// The rows.
    fn table() -> &'static [EnumRow];
    /// Wraps a raw wire value (any value is kept).
    fn from_raw(v: u8) -> Self;
    /// The raw wire value.
    fn raw(self) -> u8;
    /// The row for this value, if the value is known on any generation.
    fn row(self) -> Option<&'static EnumRow> {
        Self::table().iter().find(|r| r.value == self.raw())
    }
    /// Whether the value is defined on `gen`.
    fn is_valid(self, gen: Gen) -> bool {
        self.row().is_some_and(|r| r.gens.contains(gen))
    }
    /// The canonical name, if known.
    fn name(self) -> Option<&'static str> {
        self.row().map(|r| r.name)
    }
    /// Parses a name or alias (case-insensitive) or a number (`12`, `0xC`).
    fn parse_name(s: &str) -> Option<Self> {
        // Table names and aliases are lowercase (a test checks), so a case-insensitive
        // compare finds the same row without lowercasing a copy on the assembler's hot path.
        let t = s.trim();
        if let Some(r) = Self::table().iter().find(|r| {
            r.name.eq_ignore_ascii_case(t) || r.aliases.iter().any(|a| a.eq_ignore_ascii_case(t))
        }) {
            return Some(Self::from_raw(r.value));
        }
        parse_u8_number(&t.to_ascii_lowercase()).map(Self::from_raw)
    }
    /// The canonical name on `gen`: `None` where `gen`'s header does not define the value
    /// (the row's generations, the one declaration text, JSON and validation all read).
    fn name_on(self, gen: Gen) -> Option<&'static str> {
        self.row().filter(|r| r.gens.contains(gen)).map(|r| r.name)
    }
    /// The value as `gen`'s text writes it: its name where `gen` defines it, else `0x..`.
    fn on(self, gen: Gen) -> OnGen<Self> {
        OnGen(self, gen)
    }
    /// The value for a message on `gen`: its name there, or `0x24 (symmetric_clamp, only on
    /// maverick)` for a value another generation names, or `0x..`.
    fn described_on(self, gen: Gen) -> String {
        match (self.name_on(gen), self.row()) {
            (Some(n), _) => n.to_string(),
            (None, Some(r)) => format!("{:#04x} ({}, only on {})", r.value, r.name, r.gens),
            (None, None) => format!("{:#04x}", self.raw()),
        }
    }
    /// Parses text for `gen`: a name or alias `gen` defines (case-insensitive), or a number
    /// (`12`, `0xC`), which is always read as the raw value.
    fn parse_on(s: &str, gen: Gen) -> Result<Self, String> {
        let t = s.trim();
        if let Some(r) = Self::table().iter().find(|r| {
            r.name.eq_ignore_ascii_case(t) || r.aliases.iter().any(|a| a.eq_ignore_ascii_case(t))
        }) {
            return if r.gens.contains(gen) {
                Ok(Self::from_raw(r.value))
            } else {
                Err(format!(
                    "`{t}` is a {} name only on {}; on {gen} write its number {:#04x}",
                    Self::KIND.to_ascii_lowercase(),
                    r.gens,
                    r.value
                ))
            };
        }
        parse_u8_number(&t.to_ascii_lowercase())
            .map(Self::from_raw)
            .ok_or_else(|| {
                format!(
                    "unknown {} `{t}`; expected one of {} (or a number)",
                    Self::KIND.to_ascii_lowercase(),
                    Self::names_for(gen).join(", ")
                )
            })
    }
    /// The canonical names valid on `gen`, in table order.
    fn names_for(gen: Gen) -> Vec<&'static str> {
        Self::table()
            .iter()
            .filter(|r| r.gens.contains(gen))
            .map(|r| r.name)
            .collect()
    }
}

/// An enumeration value as a generation's text writes it ([`CodeEnum::on`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OnGen<E>(pub E, pub Gen);

impl<E: CodeEnum> fmt::Display for OnGen<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.name_on(self.1) {
            Some(n) => f.write_str(n),
            None => write!(f, "{:#04x}", self.0.raw()),
        }
    }
}

/// Parses `12`, `0xC`, `0b1100` as a byte.
pub fn parse_u8_number(s: &str) -> Option<u8> {
    let s = s.trim();
    if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        u8::from_str_radix(h, 16).ok()
    } else if let Some(b) = s.strip_prefix("0b") {
        u8::from_str_radix(b, 2).ok()
    } else {
        s.parse().ok()
    }
}

macro_rules! code_enum {
    (
        $(#[$m:meta])*
        pub struct $T:ident, kind $kind:literal {
            $( $(#[$fm:meta])* $C:ident = $v:literal, $name:literal, $gens:expr $(, [$($alias:literal),*])? ; )*
        }
    ) => {
        $(#[$m])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
        pub struct $T(pub u8);

        impl $T {
            $( $(#[$fm])* #[doc = $name] pub const $C: $T = $T($v); )*
            /// The table rows, in header order.
            pub const TABLE: &'static [EnumRow] = &[
                $( EnumRow { value: $v, name: $name, gens: $gens, aliases: &[$($($alias),*)?] }, )*
            ];
            const MASKS: [u8; 256] = {
                let mut m = [0u8; 256];
                let mut i = 0;
                while i < Self::TABLE.len() {
                    m[Self::TABLE[i].value as usize] = Self::TABLE[i].gens.bits();
                    i += 1;
                }
                m
            };
            /// Each value's canonical name, "" where the value is unknown (the first row of a
            /// value wins, as in [`CodeEnum::row`]).
            const NAMES: [&'static str; 256] = {
                let mut m = [""; 256];
                let mut i = Self::TABLE.len();
                while i > 0 {
                    i -= 1;
                    m[Self::TABLE[i].value as usize] = Self::TABLE[i].name;
                }
                m
            };
            /// [`CodeEnum::name`] as a table lookup (the disassembler's hot path).
            #[inline]
            pub const fn known_name(self) -> Option<&'static str> {
                let n = Self::NAMES[self.0 as usize];
                if n.is_empty() {
                    None
                } else {
                    Some(n)
                }
            }
            /// Whether the value is defined on `gen` (a table lookup; used on hot paths).
            #[inline]
            pub const fn defined_on(self, gen: Gen) -> bool {
                Self::MASKS[self.0 as usize] & gen.set().bits() != 0
            }
        }

        impl CodeEnum for $T {
            const KIND: &'static str = $kind;
            fn table() -> &'static [EnumRow] { Self::TABLE }
            fn from_raw(v: u8) -> Self { $T(v) }
            fn raw(self) -> u8 { self.0 }
            fn is_valid(self, gen: Gen) -> bool { self.defined_on(gen) }
        }

        impl fmt::Display for $T {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match self.name() {
                    Some(n) => f.write_str(n),
                    None => write!(f, "{:#04x}", self.0),
                }
            }
        }

        impl fmt::Debug for $T {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}({})", stringify!($T), self)
            }
        }
    };
}

const ALL: GenSet = GenSet::ALL;
const CAY: GenSet = GenSet::CAYMAN_UP;
const MAR: GenSet = GenSet::MARIANA_UP;
const MAV: GenSet = GenSet::MAVERICK;

code_enum! {
    /// `NEURON_ISA_TPB_DTYPE` (common.h:805; isa-facts §4.1). Names follow the header.
    pub struct Dtype, kind "DTYPE" {
        INVALID = 0x00, "invalid", ALL;
        UINT64 = 0x01, "uint64", ALL, ["u64"];
        INT8 = 0x02, "int8", ALL, ["i8", "s8"];
        UINT8 = 0x03, "uint8", ALL, ["u8"];
        INT16 = 0x04, "int16", ALL, ["i16", "s16"];
        UINT16 = 0x05, "uint16", ALL, ["u16"];
        BFLOAT16 = 0x06, "bfloat16", ALL, ["bf16"];
        FP16 = 0x07, "fp16", ALL, ["f16", "float16"];
        INT32 = 0x08, "int32", ALL, ["i32", "s32"];
        UINT32 = 0x09, "uint32", ALL, ["u32"];
        FP32 = 0x0A, "fp32", ALL, ["f32", "float32"];
        FP32R = 0x0B, "fp32r", ALL;
        INT64 = 0x0C, "int64", ALL, ["i64"];
        FP8_EXP3 = 0x0D, "fp8_exp3", ALL, ["fp8_e3", "fp8_e3m4", "e3m4", "float8_e3m4"];
        FP8_EXP4 = 0x0E, "fp8_exp4", ALL, ["fp8_e4", "fp8_e4m3", "e4m3", "float8_e4m3"];
        FP8_EXP5 = 0x0F, "fp8_exp5", ALL, ["fp8_e5", "fp8_e5m2", "e5m2", "float8_e5m2"];
        FP4_EXP2 = 0x10, "fp4_exp2", MAR;
        FP8_EXP2 = 0x11, "fp8_exp2", MAV;
        INT4 = 0x12, "int4", MAV;
        SFP8_E8 = 0x13, "sfp8_e8", MAV;
        SFP8_E7 = 0x14, "sfp8_e7", MAV;
        SFP8_E6 = 0x15, "sfp8_e6", MAV;
        SFP8_E5 = 0x16, "sfp8_e5", MAV;
        CPTC1 = 0x19, "cptc1", MAR;
        CPTC2 = 0x1A, "cptc2", MAR;
        CPTC3 = 0x1B, "cptc3", MAR;
        CPTC4 = 0x1C, "cptc4", MAR;
        CPTC5 = 0x1D, "cptc5", MAR;
        CPTC6 = 0x1E, "cptc6", MAR;
        CPTC7 = 0x1F, "cptc7", MAR;
    }
}

/// [`Dtype::size`] for every code, 0 for none: a table, because validation asks per operand.
const DTYPE_SIZES: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 256 {
        t[c] = match c {
            0x02 | 0x03 | 0x0D | 0x0E | 0x0F | 0x11 => 1,
            0x04..=0x07 => 2,
            0x08..=0x0B => 4,
            0x01 | 0x0C => 8,
            _ => 0,
        };
        c += 1;
    }
    t
};

impl Dtype {
    /// Element size in bytes for byte-addressable types; `None` for sub-byte, packed or
    /// unknown codes (isa-facts §2.2 `addr_aligned_dtype`).
    pub const fn size(self) -> Option<usize> {
        match DTYPE_SIZES[self.0 as usize] {
            0 => None,
            n => Some(n as usize),
        }
    }

    /// `is_valid_dtype(dtype, allow_fp32r)` (isa-facts §4.4): the 12 plain datapath types,
    /// plus FP32R when allowed. Rejects INVALID, the 64-bit, 4-bit, scale and CPTC types.
    pub const fn is_valid_dtype(self, allow_fp32r: bool) -> bool {
        match self.0 {
            0x02..=0x0A | 0x0D..=0x0F => true,
            0x0B => allow_fp32r,
            _ => false,
        }
    }

    /// `is_valid_int_dtype_datapath`: INT/UINT 8/16/32.
    pub const fn is_int_datapath(self) -> bool {
        matches!(self.0, 0x02..=0x05 | 0x08 | 0x09)
    }

    /// `is_valid_fp_dtype_datapath(d, allow_fp32r)`: FP8 ×3, FP16, BF16, FP32 (+FP32R).
    pub const fn is_fp_datapath(self, allow_fp32r: bool) -> bool {
        match self.0 {
            0x06 | 0x07 | 0x0A | 0x0D..=0x0F => true,
            0x0B => allow_fp32r,
            _ => false,
        }
    }
}

code_enum! {
    /// `NEURON_ISA_TPB_ALU_OP` (isa-facts §5.1). The enum only grows across generations.
    pub struct AluOp, kind "ALU_OP" {
        BYPASS = 0x00, "bypass", ALL, ["copy"];
        BITWISE_NOT = 0x01, "bitwise_not", ALL, ["not"];
        ARITH_SHIFT_LEFT = 0x02, "arith_shift_left", ALL;
        ARITH_SHIFT_RIGHT = 0x03, "arith_shift_right", ALL;
        ADD = 0x04, "add", ALL;
        SUBTRACT = 0x05, "subtract", ALL, ["sub"];
        MULT = 0x06, "mult", ALL, ["mul", "multiply"];
        DIVIDE = 0x07, "divide", ALL, ["div"];
        MAX = 0x08, "max", ALL;
        MIN = 0x09, "min", ALL;
        BITWISE_AND = 0x0A, "bitwise_and", ALL, ["and"];
        BITWISE_OR = 0x0B, "bitwise_or", ALL, ["or"];
        BITWISE_XOR = 0x0C, "bitwise_xor", ALL, ["xor"];
        LOGICAL_AND = 0x0D, "logical_and", ALL;
        LOGICAL_OR = 0x0E, "logical_or", ALL;
        LOGICAL_XOR = 0x0F, "logical_xor", ALL;
        LOGICAL_SHIFT_LEFT = 0x10, "logical_shift_left", ALL, ["shl"];
        LOGICAL_SHIFT_RIGHT = 0x11, "logical_shift_right", ALL, ["shr"];
        IS_EQ = 0x12, "is_eq", ALL, ["eq"];
        IS_GT = 0x13, "is_gt", ALL, ["gt"];
        IS_GE = 0x14, "is_ge", ALL, ["ge"];
        IS_LE = 0x15, "is_le", ALL, ["le"];
        IS_LT = 0x16, "is_lt", ALL, ["lt"];
        ABSOLUTE_DIFF = 0x17, "absolute_diff", ALL, ["abs_diff"];
        IS_NE = 0x18, "is_ne", ALL, ["ne"];
        ABSOLUTE_VALUE = 0x19, "absolute_value", ALL, ["abs"];
        POW = 0x1A, "pow", ALL;
        MOD = 0x1B, "mod", ALL;
        CRC32 = 0x1C, "crc32", ALL;
        RSQRT = 0x1D, "rsqrt", ALL;
        ABS_MAX = 0x20, "abs_max", MAR;
        ABS_MIN = 0x21, "abs_min", MAR;
        RE_LU = 0x22, "relu", MAR, ["re_lu"];
        SQUARE = 0x23, "square", MAR;
        SYMMETRIC_CLAMP = 0x24, "symmetric_clamp", MAV;
        ADD_INT = 0xC4, "add_int", ALL;
        MULT_INT = 0xC5, "mult_int", ALL;
        SUBTRACT_INT = 0xC6, "subtract_int", ALL;
        DIVIDE_INT = 0xC7, "divide_int", CAY;
        MOD_INT = 0xC8, "mod_int", CAY;
        IS_EQUAL_INT = 0xC9, "is_equal_int", CAY;
        IS_NE_INT = 0xCA, "is_ne_int", CAY;
        ABS_MAX_INT = 0xCB, "abs_max_int", CAY;
        ABS_MIN_INT = 0xCC, "abs_min_int", CAY;
        ABS_DIFF_INT = 0xCD, "abs_diff_int", CAY;
        ABS_VALUE_INT = 0xCE, "abs_value_int", CAY;
        MAX_INT = 0xCF, "max_int", CAY;
        MIN_INT = 0xD0, "min_int", CAY;
        IS_GT_INT = 0xD1, "is_gt_int", CAY;
        IS_GE_INT = 0xD2, "is_ge_int", CAY;
        IS_LE_INT = 0xD3, "is_le_int", CAY;
        IS_LT_INT = 0xD4, "is_lt_int", CAY;
        MAX_UINT = 0xD5, "max_uint", CAY;
        MIN_UINT = 0xD6, "min_uint", CAY;
        IS_GT_UINT = 0xD7, "is_gt_uint", CAY;
        IS_GE_UINT = 0xD8, "is_ge_uint", CAY;
        IS_LE_UINT = 0xD9, "is_le_uint", CAY;
        IS_LT_UINT = 0xDA, "is_lt_uint", CAY;
        MULT_UINT = 0xDB, "mult_uint", CAY;
        DIVIDE_UINT = 0xDC, "divide_uint", CAY;
        MOD_UINT = 0xDD, "mod_uint", CAY;
        AMAX_INT = 0xDE, "amax_int", CAY;
        AMIN_INT = 0xDF, "amin_int", CAY;
        AMAX_UINT = 0xE0, "amax_uint", CAY;
        AMIN_UINT = 0xE1, "amin_uint", CAY;
    }
}

impl AluOp {
    /// `is_bitvec_op` (assert.h:1788): 10 ops, CRC32 included.
    pub const fn is_bitvec_op(self) -> bool {
        matches!(self.0, 0x00..=0x03 | 0x0A..=0x0C | 0x10 | 0x11 | 0x1C)
    }

    /// `is_general_bitvec_op` (assert.h:1827): `is_bitvec_op` without CRC32.
    pub const fn is_general_bitvec_op(self) -> bool {
        self.is_bitvec_op() && self.0 != 0x1C
    }

    /// `is_valid_int_aluop` (isa-facts §5.2): 26 integer ops, MOD included, the AMAX/AMIN
    /// family and ABS_VALUE_INT excluded.
    pub const fn is_valid_int_aluop(self) -> bool {
        matches!(self.0, 0x1B | 0xC4..=0xCD | 0xCF..=0xDD)
    }

    /// `is_general_arith_op` (isa-facts §5.2) for `gen`: 17 ops on sunda/cayman, plus
    /// ABS_MAX/ABS_MIN/RELU/SQUARE where the generation's enum defines them.
    /// SYMMETRIC_CLAMP is not included (its membership is not public; isa-facts §13.14).
    pub const fn is_general_arith_op(self, gen: Gen) -> bool {
        match self.0 {
            0x00 | 0x04..=0x06 | 0x08 | 0x09 | 0x0D..=0x0F | 0x12..=0x19 => true,
            0x20..=0x23 => self.defined_on(gen),
            _ => false,
        }
    }

    /// `is_valid_int_aluop_dve` (maverick only; isa-facts §5.2): 15 ops.
    pub const fn is_valid_int_aluop_dve(self) -> bool {
        matches!(self.0, 0x00 | 0xC4..=0xC6 | 0xC9..=0xCD | 0xCF..=0xD4)
    }

    /// The four shift ops.
    pub const fn is_shift_op(self) -> bool {
        matches!(self.0, 0x02 | 0x03 | 0x10 | 0x11)
    }
}

code_enum! {
    /// `NEURON_ISA_TPB_AFFINE_SELECT_CMP` (s2d2_ts_as.h:46): the mask is compared with 0.
    pub struct AffineSelectCmp, kind "AFFINE_SELECT_CMP" {
        GREATER_THAN = 0x0, "gt", ALL, ["greater_than"];
        GREATER_THAN_EQ = 0x1, "ge", ALL, ["greater_than_eq", "greater_equal"];
        EQ = 0x2, "eq", ALL, ["equal"];
        NOT_EQ = 0x3, "ne", ALL, ["not_eq", "not_equal"];
    }
}

code_enum! {
    /// `NEURON_ISA_TPB_TENSOR_SUBDIM` (common.h:1195).
    pub struct TensorSubdim, kind "TENSOR_SUBDIM" {
        UNUSED = 0x00, "unused", ALL;
        X = 0x02, "x", ALL;
        XY = 0x03, "xy", ALL;
        XYZ = 0x04, "xyz", ALL;
        XYZW = 0x05, "xyzw", ALL;
    }
}

code_enum! {
    /// `NEURON_ISA_TPB_TENS_SCALAR_REV_OPS` (common.h:1390): bit 0 reverses op0, bit 1 op1.
    pub struct RevOps, kind "TENS_SCALAR_REV_OPS" {
        NONE = 0, "none", ALL;
        FIRST = 1, "first", ALL;
        SECOND = 2, "second", ALL;
        BOTH = 3, "both", ALL;
    }
}

code_enum! {
    /// `NEURON_ISA_TPB_IMM_SRC` (isa-facts §7). Not the swapped `IMM_SRC_N`.
    pub struct ImmSrc, kind "IMM_SRC" {
        INSTRUCTION = 0, "imm", ALL, ["instruction", "instruction_immediate"];
        POINTER = 1, "ptr", ALL, ["pointer", "pointer_immediate"];
        REG_PTR = 2, "reg", ALL, ["reg_ptr", "reg_ptr_immediate"];
    }
}

code_enum! {
    /// `NEURON_ISA_TPB_ACCUM_CMD` (isa-facts §7).
    pub struct AccumCmd, kind "ACCUM_CMD" {
        IDLE = 0, "idle", ALL;
        ZERO = 1, "zero", ALL;
        ACCUMULATE = 2, "accumulate", ALL;
        ZERO_ACCUMULATE = 3, "zero_accumulate", ALL;
        LOAD_ACCUMULATE = 4, "load_accumulate", ALL;
    }
}

// Issue 17b enumerations (isa-facts-dve-pool §0.3.1).
code_enum! {
    /// `NEURON_ISA_TPB_REDUCE_OP` (isa-facts-dve-pool §0.3.1): CrossLaneReduce's fold.
    pub struct ReduceOp, kind "REDUCE_OP" {
        ADD = 0, "add", ALL;
        AVERAGE = 1, "average", ALL, ["avg"];
        MAX = 2, "max", ALL;
        BITWISE_OR = 3, "bitwise_or", ALL, ["or"];
        BITWISE_AND = 4, "bitwise_and", ALL, ["and"];
        BITWISE_XOR = 5, "bitwise_xor", ALL, ["xor"];
    }
}

code_enum! {
    /// `NEURON_ISA_TPB_REDUCE_AXIS` (isa-facts-dve-pool §0.3.1).
    pub struct ReduceAxis, kind "REDUCE_AXIS" {
        ALL = 0, "all", ALL;
        PARTITIONS = 1, "partitions", ALL;
    }
}

code_enum! {
    /// `NEURON_ISA_TPB_WAIT_MODE` (isa-facts §1.3). The `_REG` forms read the threshold
    /// from the register named in the value field.
    pub struct WaitMode, kind "WAIT_MODE" {
        NONE = 0, "none", ALL;
        SEM_EQ_IMM = 1, "sem_eq_imm", ALL;
        SEM_LT_IMM = 2, "sem_lt_imm", ALL;
        SEM_LE_IMM = 3, "sem_le_imm", ALL;
        SEM_GT_IMM = 4, "sem_gt_imm", ALL;
        SEM_GE_IMM = 5, "sem_ge_imm", ALL;
        EVT_SET = 6, "evt_set", ALL;
        EVT_SET_THEN_CLEAR = 7, "evt_set_then_clear", ALL;
        EVT_CLEAR = 14, "evt_clear", ALL;
        EVT_CLEAR_THEN_SET = 15, "evt_clear_then_set", ALL;
        SEM_EQ_REG = 0x81, "sem_eq_reg", ALL;
        SEM_LT_REG = 0x82, "sem_lt_reg", ALL;
        SEM_LE_REG = 0x83, "sem_le_reg", ALL;
        SEM_GT_REG = 0x84, "sem_gt_reg", ALL;
        SEM_GE_REG = 0x85, "sem_ge_reg", ALL;
    }
}

code_enum! {
    /// `NEURON_ISA_TPB_UPDATE_MODE` (isa-facts §1.3). Only the values a source names are
    /// listed; others are treated as not in the enum (ASSUMED, see docs/reference/assumptions.md).
    pub struct UpdateMode, kind "UPDATE_MODE" {
        NONE = 0, "none", ALL;
        EVT_SET_READ = 1, "evt_set_read", ALL;
        EVT_CLR_READ = 2, "evt_clr_read", ALL;
        SEM_INC_READ = 3, "sem_inc_read", ALL;
        SEM_DEC_READ = 4, "sem_dec_read", ALL;
        SEM_ADD_IMM_READ = 5, "sem_add_imm_read", ALL;
        SEM_SUB_IMM_READ = 7, "sem_sub_imm_read", ALL;
        SEM_WR_IMM_READ = 9, "sem_wr_imm_read", ALL;
        EVT_SET_COMPLETE = 0x11, "evt_set_complete", ALL;
        SEM_INC_COMPLETE = 0x13, "sem_inc_complete", ALL;
        SEM_DEC_COMPLETE = 0x14, "sem_dec_complete", ALL;
        SEM_ADD_IMM_COMPLETE = 0x15, "sem_add_imm_complete", ALL;
        SEM_SUB_IMM_COMPLETE = 0x17, "sem_sub_imm_complete", ALL;
        SEM_WR_IMM_COMPLETE = 0x19, "sem_wr_imm_complete", ALL;
        SEM_SUB_REG_READ = 0x87, "sem_sub_reg_read", ALL;
        SEM_SUB_REG_COMPLETE = 0x97, "sem_sub_reg_complete", ALL;
        SEM_WR_REG_COMPLETE = 0x99, "sem_wr_reg_complete", ALL;
    }
}

code_enum! {
    /// `NEURON_ISA_TPB_DEBUG_CMD_LEVELS` (isa-facts §1.2); kept as-is, never validated.
    pub struct DebugCmd, kind "DEBUG_CMD" {
        NONE = 0, "none", ALL;
        NOTIFY = 1, "notify", ALL;
        START = 3, "start", ALL;
        END = 5, "end", ALL;
        START_END = 7, "start_end", ALL;
        INS_FIELD = 9, "ins_field", ALL;
    }
}

// Issue 18a: PE and ACT enumerations (isa-facts-pe-act-dma §1.5, §2.2, §2.6, §2.9).

code_enum! {
    /// `PE_FP32MODE` (S3D3_MM / S3_LW byte 33; isa-facts-pe-act-dma §1.5.1): how an FP32
    /// input is multiplied. TF32 is FP32 with `low`.
    pub struct PeFp32Mode, kind "PE_FP32MODE" {
        NONE = 0, "none", ALL;
        LOW = 1, "low", ALL, ["tf32"];
        HIGH = 2, "high", ALL;
        LOW_HIGH = 3, "low_high", ALL;
    }
}

code_enum! {
    /// `PE_SEED_MODE` (S2S1D2_PE_SEED byte 33; isa-facts-pe-act-dma §1.10.3, decision 16: the
    /// enum, not the header prose's 0/1).
    pub struct PeSeedMode, kind "PE_SEED_MODE" {
        NONE = 0, "none", ALL;
        LOAD_SEED = 1, "load_seed", ALL;
        SAVE_SEED = 2, "save_seed", ALL;
    }
}

code_enum! {
    /// `IMM_SRC_N` (S3D3_AC byte 15, the bias source; isa-facts-pe-act-dma §2.2): the first
    /// two values are swapped against `IMM_SRC`, so an all-zero bundle reads the bias
    /// through a pointer.
    pub struct ImmSrcN, kind "IMM_SRC_N" {
        POINTER = 0, "pointer", ALL, ["ptr"];
        INSTRUCTION = 1, "instruction", ALL, ["inst", "imm"];
        REG_PTR = 2, "reg_ptr", ALL;
    }
}

code_enum! {
    /// `REDUCE_CMD` (S2D2_AC byte 26; isa-facts-pe-act-dma §2.6).
    pub struct ReduceCmd, kind "REDUCE_CMD" {
        IDLE = 0, "idle", ALL;
        RESET = 1, "reset", ALL;
        REDUCE = 2, "reduce", ALL;
        RESET_REDUCE = 3, "reset_reduce", ALL;
    }
}

code_enum! {
    /// The ACT function id (byte 35 of 0x21/0x22/0x25): the wire ids of the compiler's
    /// function catalog (isa-facts-pe-act-dma §2.9, decision 9). The ISA itself defines no
    /// enum: the id is matched by the loaded tables.
    pub struct ActFunc, kind "ACTIVATION_FUNC" {
        IDENTITY = 1, "identity", ALL;
        RELU = 2, "relu", ALL;
        LRELU = 3, "lrelu", ALL, ["leaky_relu"];
        PRELU = 4, "prelu", ALL, ["parametric_relu"];
        SIGMOID = 5, "sigmoid", ALL;
        TANH = 6, "tanh", ALL;
        EXP = 7, "exp", ALL;
        SQRT = 8, "sqrt", ALL;
        SOFTPLUS = 9, "softplus", ALL;
        LN = 10, "ln", ALL, ["log"];
        SIN = 19, "sin", ALL;
        ERF = 21, "erf", ALL;
        DERIVATIVE_ERF = 22, "derivative_erf", ALL;
        GELU = 23, "gelu", ALL;
        MISH = 24, "mish", ALL;
        GELU_APPRX_TANH = 25, "gelu_apprx_tanh", ALL;
        GELU_APPRX_SIGMOID = 26, "gelu_apprx_sigmoid", ALL;
        ARCTAN = 28, "arctan", ALL;
        RSQRT = 29, "rsqrt", ALL, ["reciprocal_sqrt"];
        SQUARE = 30, "square", ALL;
        SIGN = 31, "sign", ALL;
        DERIVATIVE_GELU = 32, "derivative_gelu", ALL;
        ABS = 33, "abs", ALL;
        ABS_RECIPROCAL_SQRT = 34, "abs_reciprocal_sqrt", ALL;
        IS_FINITE = 35, "is_finite", ALL;
        SILU = 36, "silu", ALL;
        DERIVATIVE_SILU = 37, "derivative_silu", ALL;
        DERIVATIVE_GELU_APPRX_SIGMOID = 38, "dgelu_apprx_sigmoid", ALL, ["derivative_gelu_apprx_sigmoid"];
        COPY = 128, "copy", ALL;
        RECIPROCAL = 129, "reciprocal", ALL;
        MEMSET_ZERO = 130, "memset_zero", ALL;
    }
}

// ---- DMA (isa-facts-pe-act-dma §3) ---------------------------------------------------------

code_enum! {
    /// `DGE_COMPUTE_OP` (isa-facts-pe-act-dma §3.3): how the incoming data A combines with the
    /// destination B.
    pub struct DgeComputeOp, kind "DGE_COMPUTE_OP" {
        NONE = 0, "none", ALL, ["copy"];
        ADD = 1, "add", ALL;
        MULTIPLY = 2, "multiply", ALL, ["mult"];
        MAX = 3, "max", ALL;
        MIN = 4, "min", ALL;
    }
}

code_enum! {
    /// `DGE_OPCODE` (isa-facts-pe-act-dma §3.1): the kind byte (@15) of the 0xD4 pseudo.
    /// Sunda has only DIRECT2D and INDIRECT1D.
    pub struct DgeOpcode, kind "DGE_OPCODE" {
        DIRECT2D = 0, "direct2d", ALL;
        INDIRECT1D = 1, "indirect1d", ALL;
        TRANSPOSE = 2, "transpose", CAY;
        GATHER_TRANSPOSE = 3, "gather_transpose", CAY;
    }
}

code_enum! {
    /// `src_datasrc` of `MEM_2D` (isa-facts-pe-act-dma §3.14): where TensorStore's data
    /// comes from (TensorLoad forces REGISTER).
    pub struct DataSrc, kind "DATASRC" {
        REGISTER = 0, "register", ALL, ["reg"];
        IMMEDIATE = 1, "immediate", ALL, ["imm"];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // `parse_name` compares case-insensitively against the rows as written: that finds the
    // same row as lowercasing the input only while every name and alias is lowercase.
    #[test]
    fn table_names_and_aliases_are_lowercase() {
        let tables: [&[EnumRow]; 16] = [
            ReduceOp::table(),
            ReduceAxis::table(),
            Dtype::table(),
            AluOp::table(),
            AffineSelectCmp::table(),
            TensorSubdim::table(),
            RevOps::table(),
            ImmSrc::table(),
            AccumCmd::table(),
            PeFp32Mode::table(),
            ImmSrcN::table(),
            ReduceCmd::table(),
            ActFunc::table(),
            WaitMode::table(),
            UpdateMode::table(),
            DebugCmd::table(),
        ];
        for r in tables.into_iter().flatten() {
            for n in std::iter::once(&r.name).chain(r.aliases) {
                assert_eq!(*n, n.to_ascii_lowercase(), "{} row {:#x}", r.name, r.value);
            }
        }
    }

    // The disassembler's name table says what the rows say, for every byte of every table.
    #[test]
    fn known_name_is_the_row_name() {
        fn check<E: CodeEnum>(known: fn(E) -> Option<&'static str>) {
            for v in 0..=255u8 {
                let e = E::from_raw(v);
                assert_eq!(known(e), e.name(), "{} {v:#04x}", E::KIND);
            }
        }
        check(Dtype::known_name);
        check(AluOp::known_name);
        check(AffineSelectCmp::known_name);
        check(TensorSubdim::known_name);
        check(RevOps::known_name);
        check(ImmSrc::known_name);
        check(AccumCmd::known_name);
        check(WaitMode::known_name);
        check(UpdateMode::known_name);
        check(DebugCmd::known_name);
        check(ReduceOp::known_name);
        check(ReduceAxis::known_name);
    }

    // isa-facts §4.1: enumerator counts sunda 16, cayman 16, mariana 24, maverick 30.
    #[test]
    fn dtype_enumerator_counts_per_gen() {
        let n = |g| Dtype::names_for(g).len();
        assert_eq!(
            [
                n(Gen::Sunda),
                n(Gen::Cayman),
                n(Gen::Mariana),
                n(Gen::Maverick)
            ],
            [16, 16, 24, 30]
        );
    }

    // isa-facts §5.1: ALU_OP counts sunda 33, cayman 60, mariana 64, maverick 65.
    #[test]
    fn alu_op_enumerator_counts_per_gen() {
        let n = |g| AluOp::names_for(g).len();
        assert_eq!(
            [
                n(Gen::Sunda),
                n(Gen::Cayman),
                n(Gen::Mariana),
                n(Gen::Maverick)
            ],
            [33, 60, 64, 65]
        );
    }

    // seed 000 §6a: is_bitvec_op has 10 ops, is_general_arith_op 17 (21 on mariana+).
    #[test]
    fn op_class_predicate_sizes() {
        let all = || (0..=255u8).map(AluOp);
        assert_eq!(all().filter(|o| o.is_bitvec_op()).count(), 10);
        assert_eq!(all().filter(|o| o.is_general_bitvec_op()).count(), 9);
        assert_eq!(all().filter(|o| o.is_valid_int_aluop()).count(), 26);
        assert_eq!(all().filter(|o| o.is_valid_int_aluop_dve()).count(), 15);
        for (g, n) in [
            (Gen::Sunda, 17),
            (Gen::Cayman, 17),
            (Gen::Mariana, 21),
            (Gen::Maverick, 21),
        ] {
            assert_eq!(all().filter(|o| o.is_general_arith_op(g)).count(), n, "{g}");
        }
    }

    // isa-facts §4.4: 12 plain dtypes (+FP32R when allowed).
    #[test]
    fn is_valid_dtype_set() {
        let all = || (0..=255u8).map(Dtype);
        assert_eq!(all().filter(|d| d.is_valid_dtype(false)).count(), 12);
        assert_eq!(all().filter(|d| d.is_valid_dtype(true)).count(), 13);
        assert!(!Dtype::FP32R.is_valid_dtype(false));
        assert!(!Dtype::INT64.is_valid_dtype(true));
    }

    #[test]
    fn names_round_trip_and_aliases() {
        for r in Dtype::TABLE {
            assert_eq!(Dtype::parse_name(r.name), Some(Dtype(r.value)));
        }
        assert_eq!(Dtype::parse_name("BF16"), Some(Dtype::BFLOAT16));
        assert_eq!(AluOp::parse_name("0x1c"), Some(AluOp::CRC32));
        assert_eq!(AluOp(0x30).to_string(), "0x30");
        assert_eq!(Dtype::parse_name("fp33"), None);
    }
}
