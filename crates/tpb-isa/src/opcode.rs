//! The opcode table: one row per opcode, declared once (isa-facts §1.2, seeds 000/002).

use crate::gen::{Gen, GenSet};
use std::fmt;

/// The operand structs, written once: variant/type name, header name, source. Expands into
/// [`StructKind`] here and into [`crate::wire::Body`] (parse, emit, fields) in `wire`.
#[macro_export]
#[doc(hidden)]
macro_rules! for_each_struct {
    ($cb:ident) => {
        $cb! {
            S4d4Tsm, "S4D4_TSM", "TensorScalarPtrMulti (seed 000 §4)";
            S2Bn, "S2_BN", "TensorScalarImmLd (isa-facts §6)";
            S2d2TsAs, "S2D2_TS_AS", "AffineSelect (seed 002 §3)";
            D4Iota, "D4_IOTA", "Iota (isa-facts §9)";
            S3d3Ts, "S3D3_TS", "TensorScalar / TensorScalarPtr (isa-facts §7)";
            S3d3TsSelect, "S3D3_TS_SELECT", "TensorScalarSelect (isa-facts §10.1)";
            S2d2Rs, "S2D2_RS", "RangeSelect (isa-facts §10.2)";
            EventSemaphore, "EVENT_SEMAPHORE", "EventSemaphore, the standalone sync record (isa-facts §1.3)";
            // Issue 17b: DVE per-lane state, STT family, cross-lane reduce, search cluster.
            D1Rd, "D1_RD", "DveReadAccumulator / ActivationReadAccumulator (isa-facts-dve-pool §13.1)";
            // Issue 18a: PE and ACT.
            S3Lw, "S3_LW", "LoadWeights (isa-facts-pe-act-dma §1.4)";
            S3d3Mm, "S3D3_MM", "Matmul (isa-facts-pe-act-dma §1.3)";
            S3d3Ac, "S3D3_AC", "Activate (isa-facts-pe-act-dma §2.2)";
            S3d3Aq, "S3D3_AQ", "ActivateQuantize (isa-facts-pe-act-dma §2.4)";
            S2d2Ac, "S2D2_AC", "Activate2 (isa-facts-pe-act-dma §2.6)";
            S2s2d2Stt, "S2S2D2_STT", "ScalarTensorTensor / TensorTensorScan / SelectReduce (isa-facts-dve-pool §9.2)";
            S4d4Cr, "S4D4_CR", "CrossLaneReduce (isa-facts-dve-pool §8.2)";
            S4d2Bn, "S4D2_BN", "Max8 / FindIndex8 (isa-facts-dve-pool §16.1)";
            S4d4Mr, "S4D4_MR", "MatchReplace8 (isa-facts-dve-pool §16.2)";
            CtrlIm, "CTRL_IM", "LoadMaskSelect (isa-facts-dve-pool §14.2)";
            DmaDirect2d, "DMA_DIRECT2D", "DMAMEMCPY (isa-facts-pe-act-dma §3.4)";
            PseudoDmaDirect2d, "PSEUDO_DMA_DIRECT2D", "the host-lowered DMA pseudo (isa-facts-pe-act-dma §3.6)";
            PseudoDmaExt, "PSEUDO_DMA_EXT_STRUCT", "the pseudo DMA extension record (isa-facts-pe-act-dma §3.6)";
            DmaIndirect1d, "DMA_INDIRECT1D", "DMA_INDIRECT (isa-facts-pe-act-dma §3.7)";
            DmaDirect2dXpose, "DMA_DIRECT2D_XPOSE", "DMA_TRANSPOSE (isa-facts-pe-act-dma §3.8)";
            DmaGatherXpose, "DMA_GATHER_XPOSE", "DMA_GATHER_TRANSPOSE (isa-facts-pe-act-dma §3.9)";
            DmaCopy2d, "DMA_COPY2D", "DMA_MEMCPY2 (isa-facts-pe-act-dma §3.10)";
            DmaImmediate, "DMA_IMMEDIATE", "DMA_IMMEDIATE (isa-facts-pe-act-dma §3.11)";
            Mem2d, "MEM_2D", "TensorLoad / TensorStore (isa-facts-pe-act-dma §3.14)";
            // Issue 17a: the DVE/POOL compute structs (isa-facts-dve-pool).
            D4Mr, "D4_MR", "Memset / DveReadIndices (isa-facts-dve-pool §6.2, §13.2)";
            S3s3d3Tt, "S3S3D3_TT", "TensorTensor / CopyPredicated / CastPredicated (isa-facts-dve-pool §1.2, §2.2)";
            S3d3CpPredScalar, "S3D3_CP_PRED_SCALAR", "CopyPredicatedScalar (isa-facts-dve-pool §3.2)";
            S4d4Tr, "S4D4_TR", "Copy / Cast / Reciprocal / TensorReduce / StreamShuffle / StreamTranspose (isa-facts-dve-pool §4.2)";
        }
    };
}

macro_rules! struct_kinds {
    ($( $S:ident, $hn:literal, $what:literal; )*) => {
        /// The 64-byte operand struct an opcode binds (`struct2opcode`,
        /// instruction_mapping.json). The variant names are the wire struct type names in
        /// [`crate::wire`].
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum StructKind {
            $( #[doc = concat!("`", $hn, "`: ", $what, ".")] $S, )*
        }

        impl StructKind {
            /// Every struct, in declaration order.
            pub const ALL: &'static [StructKind] = &[$( StructKind::$S ),*];

            /// What bytes 1..12 hold: the common header and EVENTS, a wait band of the
            /// struct's own at 4..12 (DMA_COPY2D, DMA_IMMEDIATE), or the struct's own fields
            /// from byte 1 (the 0xDA extension record's `flags` @1, `idx_nac` @2, …)
            /// (isa-facts-pe-act-dma §3.6, §3.10, §3.11).
            pub const fn preamble(self) -> Preamble {
                match self {
                    StructKind::DmaCopy2d | StructKind::DmaImmediate => Preamble::OwnWaitBand,
                    StructKind::PseudoDmaExt => Preamble::OwnFields,
                    _ => Preamble::Common,
                }
            }

            /// The header struct name.
            pub const fn header_name(self) -> &'static str {
                match self {
                    $( StructKind::$S => $hn, )*
                }
            }
        }
    };
}

for_each_struct!(struct_kinds);

/// What a struct's bytes 1..12 hold ([`StructKind::preamble`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Preamble {
    /// The header's bytes 1..4 (`inst_word_len` = 0x10 …) and the EVENTS at 4..12.
    Common,
    /// The header's bytes 1..4, then the struct's own wait band at 4..12 (no EVENTS).
    OwnWaitBand,
    /// The struct's own fields from byte 1 (only the opcode byte is the header's).
    OwnFields,
}

/// The engine that executes an opcode (multi-engine programs route by this column).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Engine {
    /// Vector engine (`DVE_NUM_CHANNELS`).
    Dve,
    /// GpSimd / POOL engine (`POOLING_NUM_CHANNELS`).
    Pool,
    /// Any engine's queue: the standalone sync instruction runs on whichever engine the
    /// program places it (isa-facts §1.3).
    Any,
    /// Tensor engine (PE, the matmul array; isa-facts-pe-act-dma §1.1).
    Pe,
    /// Scalar / activation engine (ACT; isa-facts-pe-act-dma §2.1).
    Act,
    /// A DMA request: issued from a DMA-capable engine queue (SP or ACT with the hardware
    /// DGE, POOL with the software DGE; only POOL on sunda), the data then moving on that
    /// queue's DMA ring (isa-facts-pe-act-dma §3.1, §3.13).
    Dma,
    /// A host-only pseudo instruction, lowered by the runtime before the device sees it
    /// (isa-facts-pe-act-dma §3.6).
    Host,
    /// DVE or POOL: the compiler picks per instruction (isa-facts-dve-pool §0.1 "the same
    /// opcode can run on POOL or DVE"); placed on DVE unless the program says POOL.
    DveOrPool,
}

impl Engine {
    /// A readable phrase: `vector engine (DVE)`.
    pub const fn describe(self) -> &'static str {
        match self {
            Engine::Dve => "vector engine (DVE)",
            Engine::Pool => "GpSimd engine (POOL)",
            Engine::Any => "any engine's queue",
            Engine::Pe => "tensor engine (PE)",
            Engine::Act => "activation engine (ACT)",
            Engine::Dma => "a DMA-issuing queue (SP, ACT or POOL; POOL on sunda) and its DMA ring",
            Engine::Host => "the host (lowered before the device sees it)",
            Engine::DveOrPool => "vector engine (DVE) or GpSimd engine (POOL)",
        }
    }
}

/// The header's maintenance flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Maintenance {
    /// `// Y`: maintained.
    Maintained,
    /// `// n, use … instead`: deprecated but with a working worker.
    DeprecatedWorking,
    /// `// n, ucode/kaenadve exists, not maintained/used`: a log-only stub in firmware.
    NotMaintained,
}

/// Whether the shipped firmware of `gen` is known to register the "not maintained" workers
/// as log-only stubs: isa-facts §6 and §13 found them on cayman, mariana and maverick; sunda
/// ships only a stripped RELEASE DVE image, so nothing is known of its workers.
pub const fn stub_firmware_known(gen: Gen) -> bool {
    !matches!(gen, Gen::Sunda)
}

impl Maintenance {
    /// A readable phrase for `gen`: `deprecated, still working`. The header flag is the same
    /// on every generation; the firmware evidence is not ([`stub_firmware_known`]).
    pub const fn describe_on(self, gen: Gen) -> &'static str {
        match self {
            Maintenance::Maintained => "maintained",
            Maintenance::DeprecatedWorking => "deprecated, still working",
            Maintenance::NotMaintained if stub_firmware_known(gen) => {
                "not maintained (log-only firmware stub)"
            }
            Maintenance::NotMaintained => {
                "not maintained per the header (this generation's firmware worker is not public)"
            }
        }
    }
}

/// The instruction families, written once: variant, visitor method, operand struct, what it
/// is. Each family is one validator chain and one executor: the list generates [`Family`],
/// [`Sem`] and the visitor trait [`FamilyVisitor`](crate::wire::FamilyVisitor) that the
/// validator and the simulator implement, so a family without a handler is one compile error
/// in each `impl`. Each family's opcodes say how they run in its [`sem`] enum.
#[macro_export]
#[doc(hidden)]
macro_rules! for_each_family {
    ($cb:ident) => {
        $cb! {
            TensorScalar, tensor_scalar, S3d3Ts, "TensorScalar / TensorScalarPtr (0x43/0x53/0x44/0x54, isa-facts §7)";
            PtrMulti, ptr_multi, S4d4Tsm, "TensorScalarPtrMulti, incl. the sunda Dual form (0x4F/0x5F/0x87/0x88, seed 000 §5b, isa-facts §8)";
            ImmLd, imm_ld, S2Bn, "TensorScalarImmLd (0x70/0x71, isa-facts §6)";
            BatchNormParamLoad, batch_norm_param_load, S2Bn, "BatchNormParamLoad (0x64), an `S2_BN` sibling of ImmLd (isa-facts §6)";
            MatchValueLoad, match_value_load, S2Bn, "MatchValueLoad (0x6D), an `S2_BN` sibling of ImmLd (isa-facts §6)";
            Iota, iota, D4Iota, "Iota (0x7E, isa-facts §9)";
            AffineSelect, affine_select, S2d2TsAs, "TensorScalarAffineSelect (0x92, seed 002 §5.5)";
            TsSelect, ts_select, S3d3TsSelect, "TensorScalarSelect (0x98, isa-facts §10.1)";
            RangeSelect, range_select, S2d2Rs, "RangeSelect (0xBC, isa-facts §10.2)";
            EventSemaphore, event_semaphore, EventSemaphore, "EventSemaphore, the standalone sync record (0xA0, isa-facts §1.3)";
            // Issue 18a: PE and ACT, and DVE Exponential.
            LoadWeights, load_weights, S3Lw, "LoadWeights (0x01, isa-facts-pe-act-dma §1.4)";
            Matmul, matmul, S3d3Mm, "Matmul (0x02, isa-facts-pe-act-dma §1.3)";
            Activate, activate, S3d3Ac, "Activate (0x21, isa-facts-pe-act-dma §2.2)";
            ActivateQuantize, activate_quantize, S3d3Aq, "ActivateQuantize (0x22, isa-facts-pe-act-dma §2.4)";
            ActReadAccumulator, act_read_accumulator, D1Rd, "ActivationReadAccumulator (0x24, isa-facts-pe-act-dma §2.5)";
            Activate2, activate2, S2d2Ac, "Activate2 (0x25, isa-facts-pe-act-dma §2.6)";
            Exponential, exponential, S3d3Ts, "Exponential on DVE (0x30, isa-facts-pe-act-dma §2.12)";
            DmaMemcpy, dma_memcpy, DmaDirect2d, "DMAMEMCPY (0xB8, isa-facts-pe-act-dma §3.4)";
            PseudoDma, pseudo_dma, PseudoDmaDirect2d, "PSEUDO_DMA_DIRECT2D (0xD4, host only, isa-facts-pe-act-dma §3.6)";
            PseudoExt, pseudo_ext, PseudoDmaExt, "PSEUDO_EXTENSION (0xDA, host only, isa-facts-pe-act-dma §3.6)";
            DmaIndirect, dma_indirect, DmaIndirect1d, "DMA_INDIRECT (0xBB, isa-facts-pe-act-dma §3.7)";
            DmaTranspose, dma_transpose, DmaDirect2dXpose, "DMA_TRANSPOSE (0xBD, isa-facts-pe-act-dma §3.8)";
            DmaGatherTranspose, dma_gather_transpose, DmaGatherXpose, "DMA_GATHER_TRANSPOSE (0xF1, isa-facts-pe-act-dma §3.9)";
            DmaMemcpy2, dma_memcpy2, DmaCopy2d, "DMA_MEMCPY2 (0xB9, maverick, isa-facts-pe-act-dma §3.10)";
            DmaImmediate, dma_immediate, DmaImmediate, "DMA_IMMEDIATE (0xBA, maverick, isa-facts-pe-act-dma §3.11)";
            Mem2d, mem2d, Mem2d, "TensorLoad / TensorStore (0xAA/0xAB, isa-facts-pe-act-dma §3.14)";
            // Issue 17a (isa-facts-dve-pool).
            TensorTensor, tensor_tensor, S3s3d3Tt, "TensorTensor Arith/Bitvec (0x41/0x51, isa-facts-dve-pool §1)";
            TensorTensorBf16, tensor_tensor_bf16, S3s3d3Tt, "The sunda bf16 TensorTensor trio (0x8a/0x8b/0x8f, isa-facts-dve-pool §1.7)";
            CopyCastPredicated, copy_cast_predicated, S3s3d3Tt, "CopyPredicated / CastPredicated (0x72/0x99, isa-facts-dve-pool §2)";
            CopyPredicatedScalar, copy_predicated_scalar, S3d3CpPredScalar, "CopyPredicatedScalar (0xe8, isa-facts-dve-pool §3)";
            CopyCast, copy_cast, S4d4Tr, "Copy / Cast (0x46/0x47, isa-facts-dve-pool §4)";
            Reciprocal, reciprocal, S4d4Tr, "Reciprocal (0x48, isa-facts-dve-pool §5)";
            Memset, memset, D4Mr, "Memset (0x49, isa-facts-dve-pool §6)";
            DveReadIndices, dve_read_indices, D4Mr, "DveReadIndices (0xe9, isa-facts-dve-pool §13.2)";
            TensorReduce, tensor_reduce, S4d4Tr, "TensorReduce, TransposeTensorReduce and sunda's bf16 pair (0x42/0x52/0x83/0x84/0x8c/0x8d, isa-facts-dve-pool §7)";
            StreamShuffle, stream_shuffle, S4d4Tr, "StreamShuffle (0x6a, isa-facts-dve-pool §14.1)";
            StreamTranspose, stream_transpose, S4d4Tr, "StreamTranspose (0x6b, isa-facts-dve-pool §15)";
            // Issue 17b: the hidden DVE per-lane state and the instructions around it.
            ScalarTensorTensor, scalar_tensor_tensor, S2s2d2Stt, "ScalarTensorTensor (0x9d/0x9e), isa-facts-dve-pool §9";
            TensorTensorScan, tensor_tensor_scan, S2s2d2Stt, "TensorTensorScan (0xe5), isa-facts-dve-pool §10";
            SelectReduce, select_reduce, S2s2d2Stt, "SelectReduce (0xea), isa-facts-dve-pool §11";
            CacheReduce, cache_reduce, S3d3Ts, "TensorScalarCacheReduce / CacheCumulative (0x9a/0xe6), isa-facts-dve-pool §12";
            DveReadAccumulator, dve_read_accumulator, D1Rd, "DveReadAccumulator (0x9b), isa-facts-dve-pool §13.1";
            Search, search, S4d2Bn, "Max8 / FindIndex8 (0x6c/0x6e), isa-facts-dve-pool §16";
            MatchReplace8, match_replace8, S4d4Mr, "MatchReplace8 (0x6f), isa-facts-dve-pool §16";
            CrossLaneReduce, cross_lane_reduce, S4d4Cr, "CrossLaneReduce (0x7c/0x7d), isa-facts-dve-pool §8";
            LoadMaskSelect, load_mask_select, CtrlIm, "LoadMaskSelect (0x69), isa-facts-dve-pool §14.2";
        }
    };
}

macro_rules! families {
    ($( $F:ident, $method:ident, $S:ident, $doc:literal; )*) => {
        /// The instruction family: which validator chain and which executor an opcode uses
        /// (generated from `for_each_family!`). Deliberately exhaustive (no
        /// `#[non_exhaustive]`), so matches on it without a catch-all fail to build when a
        /// family is added.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Family {
            $( #[doc = $doc] $F, )*
        }

        impl Family {
            /// Every family, in list order.
            pub const ALL: &'static [Family] = &[$( Family::$F ),*];

            /// The operand struct the family's opcodes bind.
            pub const fn kind(self) -> StructKind {
                match self {
                    $( Family::$F => StructKind::$S, )*
                }
            }

            /// The visitor method that handles the family (`FamilyVisitor::<name>`).
            pub const fn handler(self) -> &'static str {
                match self {
                    $( Family::$F => stringify!($method), )*
                }
            }
        }

        /// What an opcode computes: its family and that family's [`sem`] variant (one column
        /// of the opcode table). The executor matches the variant without a catch-all, so a
        /// new variant does not build until it has semantics (or an explicit refusal).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Sem {
            $( #[doc = $doc] $F(sem::$F), )*
        }

        impl Sem {
            /// The family.
            pub const fn family(self) -> Family {
                match self {
                    $( Sem::$F(_) => Family::$F, )*
                }
            }

            /// Arith or Bitvec twin.
            pub const fn alu(self) -> AluClass {
                match self {
                    $( Sem::$F(v) => v.alu(), )*
                }
            }

            /// Where the scalars come from.
            pub const fn form(self) -> Form {
                match self {
                    $( Sem::$F(v) => v.form(), )*
                }
            }

            /// Every behaviour of every family, in list order.
            pub fn all() -> impl Iterator<Item = Sem> {
                [$( sem::$F::ALL.iter().map(|&v| Sem::$F(v)).collect::<Vec<_>>(), )*]
                    .into_iter()
                    .flatten()
            }

            /// The opcode rows that run this behaviour (an alias row is one more).
            pub fn rows(self) -> impl Iterator<Item = &'static OpcodeInfo> {
                OPCODES.iter().filter(move |r| r.sem == self)
            }
        }

        $(
            impl FamilySem for sem::$F {
                const FAMILY: Family = Family::$F;
                const ALL: &'static [Self] = sem::$F::ALL;
                #[inline]
                fn of(s: Sem) -> Option<Self> {
                    #[allow(unreachable_patterns)]
                    match s {
                        Sem::$F(v) => Some(v),
                        _ => None,
                    }
                }
                #[inline]
                fn sem(self) -> Sem {
                    Sem::$F(self)
                }
            }
        )*
    };
}

/// A family's behaviour enum (one of [`sem`]): `sem::Search` is the variant type of
/// [`Family::Search`]. Layers that pick or read a row by what it computes use it instead of
/// opcode bytes: [`FamilySem::of`] takes the variant out of a row's [`Sem`], and a `match`
/// on it without a catch-all does not build when the family gains a behaviour.
pub trait FamilySem: Copy + Eq + fmt::Debug + 'static {
    /// The family.
    const FAMILY: Family;
    /// Every variant, in declaration order.
    const ALL: &'static [Self];
    /// The variant, if `s` is of this family.
    fn of(s: Sem) -> Option<Self>;
    /// As a [`Sem`].
    fn sem(self) -> Sem;

    /// The opcode rows of this family, with their variants, in value order.
    fn rows() -> impl Iterator<Item = (&'static OpcodeInfo, Self)> {
        OPCODES
            .iter()
            .filter_map(|r| Self::of(r.sem).map(|v| (r, v)))
    }
}

for_each_family!(families);

macro_rules! semantics {
    ($( $(#[$fm:meta])* $F:ident { $( $(#[$vm:meta])* $V:ident = $alu:ident, $form:ident; )* } )*) => {
        /// How each family's opcodes run: one enum per family, one variant per distinct
        /// behaviour, with its ALU class and scalar form. An opcode row names its variant.
        pub mod sem {
            use super::{AluClass, Form};
            $(
                $(#[$fm])*
                #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
                pub enum $F { $( $(#[$vm])* $V, )* }

                impl $F {
                    /// Every variant, in declaration order.
                    pub const ALL: &'static [$F] = &[$( $F::$V, )*];
                    /// Arith or Bitvec twin.
                    pub const fn alu(self) -> AluClass {
                        match self { $( $F::$V => AluClass::$alu, )* }
                    }
                    /// Where the scalars come from.
                    pub const fn form(self) -> Form {
                        match self { $( $F::$V => Form::$form, )* }
                    }
                }
            )*
        }
    };
}

semantics! {
    /// TensorScalar (isa-facts §7): `out = (in op0 s0) op1 s1` per element.
    TensorScalar {
        /// Scalars are the instruction's immediates, arithmetic ops on the fp32 datapath.
        ImmArith = Arith, Immediate;
        /// Scalars are the instruction's immediates, bit-vector ops on the integer datapath.
        ImmBitvec = Bitvec, Immediate;
        /// `imm0`/`imm1` point at per-partition scalars; arithmetic ops.
        PtrArith = Arith, Pointer;
        /// `imm0`/`imm1` point at per-partition scalars; bit-vector ops.
        PtrBitvec = Bitvec, Pointer;
    }
    /// TensorScalarPtrMulti (seed 000 §5b, isa-facts §8): one scalar per outer slice from
    /// the DVE scalar flops.
    PtrMulti {
        /// One scalar per slice, arithmetic op.
        MultiArith = Arith, Multi;
        /// One scalar per slice, bit-vector op.
        MultiBitvec = Bitvec, Multi;
        /// Sunda's scalar pairs, arithmetic op (isa-facts §8).
        DualArith = Arith, Dual;
        /// Sunda's scalar pairs, bit-vector op (disabled in the header, isa-facts §8).
        DualBitvec = Bitvec, Dual;
    }
    /// TensorScalarImmLd (isa-facts §6): loads W scalars per channel into the DVE flops.
    ImmLd {
        /// Loaded as fp32 (converted from the source dtype).
        Arith = Arith, Immediate;
        /// Loaded as raw bits.
        Bitvec = Bitvec, Immediate;
    }
    /// BatchNormParamLoad (isa-facts §6).
    BatchNormParamLoad {
        /// Loads the batch-norm parameters into DVE state.
        BatchNormParamLoad = NotApplicable, Immediate;
    }
    /// MatchValueLoad (isa-facts §6).
    MatchValueLoad {
        /// Loads eight match keys into DVE state.
        MatchValueLoad = NotApplicable, Immediate;
    }
    /// Iota (isa-facts §9).
    Iota {
        /// `base + Σ index·step + channel·channel_multiplier`.
        Iota = NotApplicable, Immediate;
    }
    /// TensorScalarAffineSelect (seed 002 §5.5).
    AffineSelect {
        /// Keeps the source where the affine predicate holds, else the fill register.
        AffineSelect = NotApplicable, Immediate;
    }
    /// TensorScalarSelect (isa-facts §10.1).
    TsSelect {
        /// Picks the source or the `src1` scalar by the predicate.
        TsSelect = NotApplicable, Immediate;
    }
    /// RangeSelect (isa-facts §10.2).
    RangeSelect {
        /// Keeps the elements whose index lies in the bounds, else the fill value; max-reduces.
        RangeSelect = NotApplicable, Immediate;
    }
    /// EventSemaphore (isa-facts §1.3).
    EventSemaphore {
        /// A second wait and a second update on semaphores/events; no data.
        EventSemaphore = NotApplicable, Immediate;
    }
    /// LoadWeights (isa-facts-pe-act-dma §1.4).
    LoadWeights {
        /// Loads the stationary tile into the PE array.
        LoadWeights = NotApplicable, Immediate;
    }
    /// Matmul (isa-facts-pe-act-dma §1.3).
    Matmul {
        /// `psum = weights.T @ moving`, overwriting or accumulating.
        Matmul = NotApplicable, Immediate;
    }
    /// Activate (isa-facts-pe-act-dma §2.2).
    Activate {
        /// `out = func(scale · in + bias)` with the accumulator command.
        Activate = NotApplicable, Immediate;
    }
    /// ActivateQuantize (isa-facts-pe-act-dma §2.4).
    ActivateQuantize {
        /// Activate, then scale, add the zero point and saturate to u8.
        ActivateQuantize = NotApplicable, Immediate;
    }
    /// ActivationReadAccumulator (isa-facts-pe-act-dma §2.5).
    ActReadAccumulator {
        /// Writes each lane's ACT accumulator to its one destination element.
        ActReadAccumulator = NotApplicable, Immediate;
    }
    /// Activate2 (isa-facts-pe-act-dma §2.6).
    Activate2 {
        /// `func((in op0 imm0) op1 imm1)` with a free-dimension reduce (order ASSUMED).
        Activate2 = NotApplicable, Immediate;
    }
    /// Exponential (isa-facts-pe-act-dma §2.12).
    Exponential {
        /// `exp(in - max_value)` with the accumulator command.
        Exponential = NotApplicable, Immediate;
    }
    /// DMAMEMCPY (isa-facts-pe-act-dma §3.4).
    DmaMemcpy {
        /// A 2-D byte walk to a 2-D byte walk, optionally cast / combined through fp32.
        Direct2d = NotApplicable, Immediate;
    }
    /// PSEUDO_DMA_DIRECT2D (isa-facts-pe-act-dma §3.6).
    PseudoDma {
        /// Lowered by the runtime to the instruction its `dge_op` names.
        Lowered = NotApplicable, Immediate;
    }
    /// PSEUDO_EXTENSION (isa-facts-pe-act-dma §3.6).
    PseudoExt {
        /// Read by the runtime's lowering of the 0xD4 before it.
        Extension = NotApplicable, Immediate;
    }
    /// DMA_INDIRECT (isa-facts-pe-act-dma §3.7).
    DmaIndirect {
        /// A 1-D gather/scatter through an index array.
        Indirect1d = NotApplicable, Immediate;
    }
    /// DMA_TRANSPOSE (isa-facts-pe-act-dma §3.8).
    DmaTranspose {
        /// 16-row tiles transposed into SBUF.
        Transpose = NotApplicable, Immediate;
    }
    /// DMA_GATHER_TRANSPOSE (isa-facts-pe-act-dma §3.9).
    DmaGatherTranspose {
        /// Rows gathered by index and transposed.
        GatherTranspose = NotApplicable, Immediate;
    }
    /// DMA_MEMCPY2 (isa-facts-pe-act-dma §3.10).
    DmaMemcpy2 {
        /// A 2-D copy with its own wait band and rd/wr-done semaphores.
        Copy2d = NotApplicable, Immediate;
    }
    /// DMA_IMMEDIATE (isa-facts-pe-act-dma §3.11).
    DmaImmediate {
        /// Raw UDMA descriptors.
        Descriptors = NotApplicable, Immediate;
    }
    /// TensorLoad / TensorStore (isa-facts-pe-act-dma §3.14).
    Mem2d {
        /// Sequencer registers ← memory.
        Load = NotApplicable, Immediate;
        /// Memory ← registers or immediates.
        Store = NotApplicable, Immediate;
    }
    // Issue 17a (isa-facts-dve-pool).
    /// TensorTensor (isa-facts-dve-pool §1.5): `dst = src0 op src1`.
    TensorTensor {
        /// Arithmetic ops on the FP32 hub, int-aluops on the integer band.
        Arith = Arith, Immediate;
        /// Bit-vector ops on raw bits.
        Bitvec = Bitvec, Immediate;
    }
    /// Sunda's bf16 TensorTensor trio (isa-facts-dve-pool §1.7): the op is the opcode's.
    TensorTensorBf16 {
        /// 0x8a: Add.
        Add = Arith, Immediate;
        /// 0x8b: Mult.
        Mult = Arith, Immediate;
        /// 0x8f: Subtract.
        Sub = Arith, Immediate;
    }
    /// CopyPredicated / CastPredicated (isa-facts-dve-pool §2.4).
    CopyCastPredicated {
        /// 0x72: raw bits where the predicate holds.
        Copy = NotApplicable, Immediate;
        /// 0x99: converted through FP32 where the predicate holds.
        Cast = NotApplicable, Immediate;
    }
    /// CopyPredicatedScalar (isa-facts-dve-pool §3.4).
    CopyPredicatedScalar {
        /// Writes the scalar where `(pred != 0) == reversed_pred`.
        CopyPredicatedScalar = NotApplicable, Immediate;
    }
    /// Copy / Cast (isa-facts-dve-pool §4.4).
    CopyCast {
        /// 0x46: raw bits.
        Copy = NotApplicable, Immediate;
        /// 0x47: through FP32.
        Cast = NotApplicable, Immediate;
    }
    /// Reciprocal (isa-facts-dve-pool §5).
    Reciprocal {
        /// `1 / x` in FP32.
        Reciprocal = NotApplicable, Immediate;
    }
    /// Memset (isa-facts-dve-pool §6.4).
    Memset {
        /// Raw fill.
        Memset = NotApplicable, Immediate;
    }
    /// DveReadIndices (isa-facts-dve-pool §13.2).
    DveReadIndices {
        /// Drains the MatchReplace8 index flops.
        DveReadIndices = NotApplicable, Immediate;
    }
    /// TensorReduce family (isa-facts-dve-pool §7).
    TensorReduce {
        /// 0x42: arithmetic reduce.
        Arith = Arith, Immediate;
        /// 0x52: bit-vector reduce.
        Bitvec = Bitvec, Immediate;
        /// 0x83: StreamTranspose's move, then the arithmetic reduce.
        TransposeArith = Arith, Immediate;
        /// 0x84: StreamTranspose's move, then the bit-vector reduce.
        TransposeBitvec = Bitvec, Immediate;
        /// 0x8c (sunda): bf16 Add.
        AddBf16 = Arith, Immediate;
        /// 0x8d (sunda): bf16 Max.
        MaxBf16 = Arith, Immediate;
    }
    /// StreamShuffle (isa-facts-dve-pool §14.1).
    StreamShuffle {
        /// Partition permutation by the LoadMaskSelect table.
        StreamShuffle = NotApplicable, Immediate;
    }
    /// StreamTranspose (isa-facts-dve-pool §15).
    StreamTranspose {
        /// 32 × 32 transpose.
        StreamTranspose = NotApplicable, Immediate;
    }
    // Issue 17b.
    /// ScalarTensorTensor (isa-facts-dve-pool §9): `(src0 op0 s) op1 src1`.
    ScalarTensorTensor {
        /// Arithmetic ops on the fp32 datapath, optional accumulation.
        Arith = Arith, Immediate;
        /// Bit-vector ops on raw bits.
        Bitvec = Bitvec, Immediate;
    }
    /// TensorTensorScan (§10).
    TensorTensorScan {
        /// The fp32 recurrence.
        Arith = Arith, Immediate;
    }
    /// SelectReduce (§11).
    SelectReduce {
        /// Predicated copy with a running max.
        SelectReduce = NotApplicable, Immediate;
    }
    /// The cache ops (§12).
    CacheReduce {
        /// 0x9a: dst gets the per-element fold; the reduction stays in the accumulator.
        Reduce = Arith, Immediate;
        /// 0xe6: dst gets the running value.
        Cumulative = Arith, Immediate;
    }
    /// DveReadAccumulator (§13.1).
    DveReadAccumulator {
        /// Drain the lane accumulator.
        DveReadAccumulator = NotApplicable, Immediate;
    }
    /// Max8 / FindIndex8 (§16).
    Search {
        /// The 8 largest values.
        Max8 = NotApplicable, Immediate;
        /// The first match of each key.
        FindIndex8 = NotApplicable, Immediate;
    }
    /// MatchReplace8 (§16).
    MatchReplace8 {
        /// Replace first matches, record their positions.
        MatchReplace8 = NotApplicable, Immediate;
    }
    /// CrossLaneReduce (§8).
    CrossLaneReduce {
        /// ADD / AVERAGE / MAX.
        Arith = Arith, Immediate;
        /// Bitwise OR / AND / XOR.
        Bitvec = Bitvec, Immediate;
    }
    /// LoadMaskSelect (§14.2).
    LoadMaskSelect {
        /// Load the mask-select table.
        LoadMaskSelect = NotApplicable, Immediate;
    }
}

/// Whether the opcode's ALU ops are arithmetic or bit-vector (the Arith/Bitvec twins).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AluClass {
    /// `…Arith`: general arithmetic ops.
    Arith,
    /// `…Bitvec`: bit-vector ops on integer dtypes.
    Bitvec,
    /// No Arith/Bitvec twin.
    NotApplicable,
}

/// Where the scalar operands come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Form {
    /// Immediates in the instruction (or no scalar operands).
    Immediate,
    /// `…Ptr…`: scalars read through pointers (0x44/0x54).
    Pointer,
    /// `…PtrMulti…`: one scalar per slice from the DVE scalar flops.
    Multi,
    /// `…PtrMultiDual…` (sunda): scalar pairs from the flops.
    Dual,
}

/// Whether tpb executes the opcode, and if not, why (the one place the refusals live).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Exec {
    /// Executed by the simulator, as the row's [`Sem`] variant says.
    Run,
    /// Disabled on the hardware; the simulator refuses it and `validate` reports it.
    Disabled(&'static str),
    /// Semantics or state not modelled; the simulator refuses it as not supported.
    NotSupported(&'static str),
}

/// One opcode row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct OpcodeInfo {
    /// Wire value (byte 0).
    pub value: u8,
    /// Header enumerator name without the `NEURON_ISA_TPB_OPCODE_` prefix.
    pub header_name: &'static str,
    /// The instruction's readable name (firmware self-name).
    pub display: &'static str,
    /// The assembler mnemonic.
    pub mnemonic: &'static str,
    /// The operand struct (the family's).
    pub kind: StructKind,
    /// The executing engine.
    pub engine: Engine,
    /// The maintenance flag.
    pub maintenance: Maintenance,
    /// The generations whose opcode enum defines the value.
    pub gens: GenSet,
    /// What the opcode computes: its family and that family's variant (the table's column).
    pub sem: Sem,
    /// The family (validator chain and executor), from `sem`.
    pub family: Family,
    /// Arith or Bitvec twin, from `sem`.
    pub alu: AluClass,
    /// Where the scalars come from, from `sem`.
    pub form: Form,
    /// Executed, disabled or not supported.
    pub exec: Exec,
    /// Where the facts come from (a section of `docs/reference/`).
    pub source: &'static str,
    /// The firmware worker's self-name log line, `S: <display>` (seed 000 §8).
    pub firmware_log: &'static str,
}

impl OpcodeInfo {
    /// The Bitvec twin (`is_bitvec` in the validator and the simulator).
    pub const fn is_bitvec(&self) -> bool {
        matches!(self.alu, AluClass::Bitvec)
    }
}

const PSEUDO_HOST: &str = "a host-only pseudo instruction: the runtime lowers it before the \
                           device sees it (isa-facts-pe-act-dma §3.6); lower the program \
                           first (`tpb_isa::lower::lower_pseudo`)";
const INDIRECT_SEMANTICS: &str = "the index walk of DMA_INDIRECT is only INFERRED and the \
                                  rule for repeated scatter indices is not public \
                                  (isa-facts-pe-act-dma §3.7)";
const XPOSE_ORDER: &str = "the tile order of the DMA transposes is not public \
                           (isa-facts-pe-act-dma §3.8, §8 Q22)";
const COPY2D_SEMANTICS: &str = "DMA_MEMCPY2's DMA_ADDR_UNION register forms, engine fan-out and \
                                rd/wr-done semaphore effects are public only as enum names \
                                (isa-facts-pe-act-dma §3.10)";
const DMA_IMMEDIATE_SEMANTICS: &str = "DMA_IMMEDIATE's raw UDMA descriptors have further \
                                       constraints given only in prose \
                                       (isa-facts-pe-act-dma §3.11, §3.12)";
const BN_STATE: &str = "it loads DVE batch-norm / match-value state that tpb does not model \
                        (isa-facts §6)";
const DISABLED_0X88: &str = "TensorScalarPtrMultiDualBitvec (0x88) is disabled in the sunda \
                             header: no sensible fixed second op and the DVE uop table is full \
                             (isa-facts §8)";
const ACT2_ORDER: &str = "the order of Activate2's two ALU ops around the function, its reverse \
                          bits and the relu_param use are not public (isa-facts-pe-act-dma \
                          §2.6, §8 item 17)";
/// The opcode table, one row per opcode, written once. It expands through a callback macro
/// (the wasmtime Pulley `for_each_op!` pattern), so other modules can generate code from the
/// same rows; here it generates the `Opcode` constants and [`OPCODES`].
/// Columns: constant = value, header name, display, mnemonic, engine, maintenance,
/// generations, semantics (family and its [`sem`] variant: how the opcode runs; the family
/// gives the struct), exec (run, or refused and why), source. A row may carry `#[cfg(…)]`
/// attributes (every callback passes them on).
#[macro_export]
#[doc(hidden)]
macro_rules! for_each_opcode {
    ($cb:ident) => {
        $cb! {
            LOAD_WEIGHTS = 0x01, "LDWEIGHTS", "LoadWeights", "load_weights", Pe, Maintained, ALL, LoadWeights(LoadWeights), Run, "isa-facts-pe-act-dma §1.4";
            MATMUL = 0x02, "MATMUL", "Matmul", "matmul", Pe, Maintained, ALL, Matmul(Matmul), Run, "isa-facts-pe-act-dma §1.3";
            ACTIVATE = 0x21, "ACTIVATE", "Activate", "activate", Act, Maintained, ALL, Activate(Activate), Run, "isa-facts-pe-act-dma §2.2";
            ACTIVATE_QUANTIZE = 0x22, "ACTIVATE_QUANTIZE", "ActivateQuantize", "activate_quantize", Act, Maintained, ALL, ActivateQuantize(ActivateQuantize), Run, "isa-facts-pe-act-dma §2.4";
            ACTIVATION_READ_ACCUMULATOR = 0x24, "ACTIVATION_READ_ACCUMULATOR", "ActivationReadAccumulator", "act_read_accumulator", Act, Maintained, ALL, ActReadAccumulator(ActReadAccumulator), Run, "isa-facts-pe-act-dma §2.5";
            ACTIVATE2 = 0x25, "ACTIVATE2", "Activate2", "activate2", Act, Maintained, MARIANA_UP, Activate2(Activate2), NotSupported(ACT2_ORDER), "isa-facts-pe-act-dma §2.6";
            EXPONENTIAL = 0x30, "EXPONENTIAL", "Exponential", "exponential", Dve, Maintained, ALL, Exponential(Exponential), Run, "isa-facts-pe-act-dma §2.12";
            TENSOR_TENSOR_ARITH = 0x41, "TENSOR_TENSOR_ARITH_OP", "TensorTensorArith", "tt_arith", DveOrPool, Maintained, ALL, TensorTensor(Arith), Run, "isa-facts-dve-pool §1";
            TENSOR_REDUCE_ARITH = 0x42, "TENSOR_REDUCE_ARITH_OP", "TensorReduceArith", "tensor_reduce_arith", DveOrPool, Maintained, ALL, TensorReduce(Arith), Run, "isa-facts-dve-pool §7";
            TENSOR_SCALAR_ARITH = 0x43, "TENSOR_SCALAR_ARITH_OP", "TensorScalarArith", "ts_arith", Dve, Maintained, ALL, TensorScalar(ImmArith), Run, "isa-facts §7";
            TENSOR_SCALAR_PTR_ARITH = 0x44, "TENSOR_SCALAR_PTR_ARITH_OP", "TensorScalarPtrArith", "ts_ptr_arith", Dve, DeprecatedWorking, ALL, TensorScalar(PtrArith), Run, "isa-facts §7";
            COPY = 0x46, "COPY", "Copy", "copy", DveOrPool, Maintained, ALL, CopyCast(Copy), Run, "isa-facts-dve-pool §4";
            CAST = 0x47, "CAST", "Cast", "cast", DveOrPool, Maintained, ALL, CopyCast(Cast), Run, "isa-facts-dve-pool §4";
            RECIPROCAL = 0x48, "RECIPROCAL", "Reciprocal", "reciprocal", Dve, Maintained, ALL, Reciprocal(Reciprocal), Run, "isa-facts-dve-pool §5";
            MEMSET = 0x49, "MEMSET", "Memset", "memset", DveOrPool, Maintained, ALL, Memset(Memset), Run, "isa-facts-dve-pool §6";
            TENSOR_SCALAR_PTR_MULTI_ARITH = 0x4F, "TENSOR_SCALAR_PTR_MULTI_ARITH", "TensorScalarPtrMultiArith", "ptr_multi_arith", Dve, NotMaintained, ALL, PtrMulti(MultiArith), Run, "seed 000 §3";
            TENSOR_TENSOR_BITVEC = 0x51, "TENSOR_TENSOR_BITVEC_OP", "TensorTensorBitvec", "tt_bitvec", DveOrPool, Maintained, ALL, TensorTensor(Bitvec), Run, "isa-facts-dve-pool §1";
            TENSOR_REDUCE_BITVEC = 0x52, "TENSOR_REDUCE_BITVEC_OP", "TensorReduceBitvec", "tensor_reduce_bitvec", DveOrPool, Maintained, ALL, TensorReduce(Bitvec), Run, "isa-facts-dve-pool §7";
            TENSOR_SCALAR_BITVEC = 0x53, "TENSOR_SCALAR_BITVEC_OP", "TensorScalarBitvec", "ts_bitvec", Dve, Maintained, ALL, TensorScalar(ImmBitvec), Run, "isa-facts §7";
            TENSOR_SCALAR_PTR_BITVEC = 0x54, "TENSOR_SCALAR_PTR_BITVEC_OP", "TensorScalarPtrBitvec", "ts_ptr_bitvec", Dve, DeprecatedWorking, ALL, TensorScalar(PtrBitvec), Run, "isa-facts §7";
            TENSOR_SCALAR_PTR_MULTI_BITVEC = 0x5F, "TENSOR_SCALAR_PTR_MULTI_BITVEC", "TensorScalarPtrMultiBitvec", "ptr_multi_bitvec", Dve, NotMaintained, ALL, PtrMulti(MultiBitvec), Run, "seed 000 §3";
            BATCH_NORM_PARAM_LOAD = 0x64, "BATCH_NORM_PARAM_LOAD", "BatchNormParamLoad", "bn_param_load", Dve, Maintained, ALL, BatchNormParamLoad(BatchNormParamLoad), NotSupported(BN_STATE), "isa-facts §6 (S2_BN siblings)";
            // Test-only (feature `test-alias-row`, issue 26): an alias of FindIndex8 under a
            // new byte, the row its only edit; tpb-sim's tests/alias_row.rs checks every layer
            // treats it as its twin.
            #[cfg(feature = "test-alias-row")]
            FIND_INDEX8_ALIAS = 0x66, "FIND_INDEX8_ALIAS", "FindIndex8Alias", "find_index8_alias", Dve, Maintained, ALL, Search(FindIndex8), Run, "isa-facts-dve-pool §16 (test-only alias)";
            LOAD_MASK_SELECT = 0x69, "LOAD_MASK_SELECT", "LoadMaskSelect", "load_mask_select", Dve, Maintained, ALL, LoadMaskSelect(LoadMaskSelect), Run, "isa-facts-dve-pool §14.2";
            STREAM_SHUFFLE = 0x6A, "STREAM_SHUFFLE", "StreamShuffle", "stream_shuffle", Dve, Maintained, ALL, StreamShuffle(StreamShuffle), Run, "isa-facts-dve-pool §14.1";
            STREAM_TRANSPOSE = 0x6B, "STREAM_TRANSPOSE", "StreamTranspose", "stream_transpose", Dve, Maintained, ALL, StreamTranspose(StreamTranspose), Run, "isa-facts-dve-pool §15";
            MAX8 = 0x6C, "MAX8", "Max8", "max8", Dve, Maintained, ALL, Search(Max8), Run, "isa-facts-dve-pool §16";
            MATCH_VALUE_LOAD = 0x6D, "MATCH_VALUE_LOAD", "MatchValueLoad", "match_value_load", Dve, Maintained, ALL, MatchValueLoad(MatchValueLoad), Run, "isa-facts §6 (S2_BN siblings), isa-facts-dve-pool §16";
            FIND_INDEX8 = 0x6E, "FIND_INDEX8", "FindIndex8", "find_index8", Dve, Maintained, ALL, Search(FindIndex8), Run, "isa-facts-dve-pool §16";
            MATCH_REPLACE8 = 0x6F, "MATCH_REPLACE8", "MatchReplace", "match_replace8", Dve, Maintained, ALL, MatchReplace8(MatchReplace8), Run, "isa-facts-dve-pool §16";
            TENSOR_SCALAR_IMM_LD_ARITH = 0x70, "TENSOR_SCALAR_IMM_LD_ARITH", "TensorScalarImmLdArith", "imm_ld_arith", Dve, NotMaintained, ALL, ImmLd(Arith), Run, "isa-facts §6";
            TENSOR_SCALAR_IMM_LD_BITVEC = 0x71, "TENSOR_SCALAR_IMM_LD_BITVEC", "TensorScalarImmLdBitvec", "imm_ld_bitvec", Dve, NotMaintained, ALL, ImmLd(Bitvec), Run, "isa-facts §6";
            COPY_PREDICATED = 0x72, "COPY_PREDICATED", "CopyPredicated", "copy_predicated", Dve, Maintained, ALL, CopyCastPredicated(Copy), Run, "isa-facts-dve-pool §2";
            CROSS_LANE_REDUCE_ARITH = 0x7C, "CROSS_LANE_REDUCE_ARITH", "CrossLaneReduceArith", "cross_lane_reduce_arith", Pool, Maintained, ALL, CrossLaneReduce(Arith), Run, "isa-facts-dve-pool §8";
            CROSS_LANE_REDUCE_BITVEC = 0x7D, "CROSS_LANE_REDUCE_BITVEC", "CrossLaneReduceBitvec", "cross_lane_reduce_bitvec", Pool, Maintained, ALL, CrossLaneReduce(Bitvec), Run, "isa-facts-dve-pool §8";
            IOTA = 0x7E, "IOTA", "Iota", "iota", Pool, Maintained, ALL, Iota(Iota), Run, "isa-facts §9";
            TRANSPOSE_TENSOR_REDUCE_ARITH = 0x83, "TRANSPOSE_TENSOR_REDUCE_ARITH_OP", "TransposeTensorReduceArith", "transpose_reduce_arith", DveOrPool, Maintained, ALL, TensorReduce(TransposeArith), Run, "isa-facts-dve-pool §7";
            TRANSPOSE_TENSOR_REDUCE_BITVEC = 0x84, "TRANSPOSE_TENSOR_REDUCE_BITVEC_OP", "TransposeTensorReduceBitvec", "transpose_reduce_bitvec", DveOrPool, Maintained, ALL, TensorReduce(TransposeBitvec), Run, "isa-facts-dve-pool §7";
            TENSOR_SCALAR_PTR_MULTI_DUAL_ARITH = 0x87, "TENSOR_SCALAR_PTR_MULTI_DUAL_ARITH", "TensorScalarPtrMultiDualArith", "ptr_multi_dual_arith", Dve, NotMaintained, SUNDA, PtrMulti(DualArith), Run, "seed 000 §3, isa-facts §8";
            TENSOR_SCALAR_PTR_MULTI_DUAL_BITVEC = 0x88, "TENSOR_SCALAR_PTR_MULTI_DUAL_BITVEC", "TensorScalarPtrMultiDualBitvec", "ptr_multi_dual_bitvec", Dve, NotMaintained, SUNDA, PtrMulti(DualBitvec), Disabled(DISABLED_0X88), "seed 000 §3, isa-facts §8";
            TENSOR_TENSOR_ADD_BF16 = 0x8A, "TENSOR_TENSOR_ADD_BF16", "TensorTensorAddBf16", "tt_add_bf16", Pool, Maintained, SUNDA, TensorTensorBf16(Add), Run, "isa-facts-dve-pool §1.7";
            TENSOR_TENSOR_MULT_BF16 = 0x8B, "TENSOR_TENSOR_MULT_BF16", "TensorTensorMultBf16", "tt_mult_bf16", Pool, Maintained, SUNDA, TensorTensorBf16(Mult), Run, "isa-facts-dve-pool §1.7";
            TENSOR_REDUCE_ADD_BF16 = 0x8C, "TENSOR_REDUCE_ADD_BF16", "TensorReduceAddBf16", "tensor_reduce_add_bf16", Pool, Maintained, SUNDA, TensorReduce(AddBf16), Run, "isa-facts-dve-pool §7.5";
            TENSOR_REDUCE_MAX_BF16 = 0x8D, "TENSOR_REDUCE_MAX_BF16", "TensorReduceMaxBf16", "tensor_reduce_max_bf16", Pool, Maintained, SUNDA, TensorReduce(MaxBf16), Run, "isa-facts-dve-pool §7.5";
            TENSOR_TENSOR_SUB_BF16 = 0x8F, "TENSOR_TENSOR_SUB_BF16", "TensorTensorSubBf16", "tt_sub_bf16", Pool, Maintained, SUNDA, TensorTensorBf16(Sub), Run, "isa-facts-dve-pool §1.7";
            TENSOR_SCALAR_AFFINE_SELECT = 0x92, "TENSOR_SCALAR_AFFINE_SELECT", "TensorScalarAffineSelect", "affine_select", Pool, Maintained, ALL, AffineSelect(AffineSelect), Run, "seed 002 §3";
            TENSOR_SCALAR_SELECT = 0x98, "TENSOR_SCALAR_SELECT", "TensorScalarSelect", "ts_select", Dve, Maintained, ALL, TsSelect(TsSelect), Run, "isa-facts §10.1";
            CAST_PREDICATED = 0x99, "CAST_PREDICATED", "CastPredicated", "cast_predicated", Dve, Maintained, ALL, CopyCastPredicated(Cast), Run, "isa-facts-dve-pool §2";
            TENSOR_SCALAR_CACHE_REDUCE = 0x9A, "TENSOR_SCALAR_CACHE_REDUCE", "TensorScalarCacheReduce", "ts_cache_reduce", Dve, Maintained, ALL, CacheReduce(Reduce), Run, "isa-facts-dve-pool §12";
            DVE_READ_ACCUMULATOR = 0x9B, "DVE_READ_ACCUMULATOR", "DveReadAccumulator", "dve_read_acc", Dve, Maintained, ALL, DveReadAccumulator(DveReadAccumulator), Run, "isa-facts-dve-pool §13.1";
            SCALAR_TENSOR_TENSOR_ARITH = 0x9D, "SCALAR_TENSOR_TENSOR_ARITH", "ScalarTensorTensorArith", "stt_arith", Dve, Maintained, ALL, ScalarTensorTensor(Arith), Run, "isa-facts-dve-pool §9";
            SCALAR_TENSOR_TENSOR_BITVEC = 0x9E, "SCALAR_TENSOR_TENSOR_BITVEC", "ScalarTensorTensorBitvec", "stt_bitvec", Dve, Maintained, ALL, ScalarTensorTensor(Bitvec), Run, "isa-facts-dve-pool §9";
            EVENT_SEMAPHORE = 0xA0, "EVENT_SEMAPHORE", "EventSemaphore", "event_semaphore", Any, Maintained, ALL, EventSemaphore(EventSemaphore), Run, "isa-facts §1.3";
            TENSOR_LOAD = 0xAA, "TENSOR_LOAD", "TensorLoad", "tensor_load", Any, Maintained, ALL, Mem2d(Load), Run, "isa-facts-pe-act-dma §3.14";
            TENSOR_STORE = 0xAB, "TENSOR_STORE", "TensorStore", "tensor_store", Any, Maintained, ALL, Mem2d(Store), Run, "isa-facts-pe-act-dma §3.14";
            DMA_MEMCPY = 0xB8, "DMAMEMCPY", "DmaMemcpy", "dma_memcpy", Dma, Maintained, ALL, DmaMemcpy(Direct2d), Run, "isa-facts-pe-act-dma §3.4";
            DMA_MEMCPY2 = 0xB9, "DMA_MEMCPY2", "DmaMemcpy2", "dma_memcpy2", Dma, Maintained, MAVERICK, DmaMemcpy2(Copy2d), NotSupported(COPY2D_SEMANTICS), "isa-facts-pe-act-dma §3.10";
            DMA_IMMEDIATE = 0xBA, "DMA_IMMEDIATE", "DmaImmediate", "dma_immediate", Dma, Maintained, MAVERICK, DmaImmediate(Descriptors), NotSupported(DMA_IMMEDIATE_SEMANTICS), "isa-facts-pe-act-dma §3.11";
            DMA_INDIRECT = 0xBB, "DMA_INDIRECT", "DmaIndirect", "dma_indirect", Dma, Maintained, ALL, DmaIndirect(Indirect1d), NotSupported(INDIRECT_SEMANTICS), "isa-facts-pe-act-dma §3.7";
            RANGE_SELECT = 0xBC, "RANGE_SELECT", "RangeSelect", "range_select", Dve, Maintained, CAYMAN_UP, RangeSelect(RangeSelect), Run, "isa-facts §10.2";
            DMA_TRANSPOSE = 0xBD, "DMA_TRANSPOSE", "DmaTranspose", "dma_transpose", Dma, Maintained, CAYMAN_UP, DmaTranspose(Transpose), NotSupported(XPOSE_ORDER), "isa-facts-pe-act-dma §3.8";
            PSEUDO_DMA_DIRECT2D = 0xD4, "PSEUDO_DMA_DIRECT2D", "PseudoDmaDirect2d", "pseudo_dma_direct2d", Host, Maintained, ALL, PseudoDma(Lowered), NotSupported(PSEUDO_HOST), "isa-facts-pe-act-dma §3.6";
            PSEUDO_EXTENSION = 0xDA, "PSEUDO_EXTENSION", "PseudoExtension", "pseudo_extension", Host, Maintained, ALL, PseudoExt(Extension), NotSupported(PSEUDO_HOST), "isa-facts-pe-act-dma §3.6";
            TENSOR_TENSOR_SCAN_ARITH = 0xE5, "TENSOR_TENSOR_SCAN_ARITH", "TensorTensorScan", "tt_scan", Dve, Maintained, ALL, TensorTensorScan(Arith), Run, "isa-facts-dve-pool §10";
            TENSOR_SCALAR_CACHE_CUMULATIVE = 0xE6, "TENSOR_SCALAR_CACHE_CUMULATIVE", "TensorScalarCacheCumulative", "ts_cache_cumulative", Dve, Maintained, ALL, CacheReduce(Cumulative), Run, "isa-facts-dve-pool §12";
            COPY_PREDICATED_SCALAR = 0xE8, "COPY_PREDICATED_SCALAR", "CopyPredicatedScalar", "copy_predicated_scalar", Dve, Maintained, ALL, CopyPredicatedScalar(CopyPredicatedScalar), Run, "isa-facts-dve-pool §3";
            DVE_READ_INDICES = 0xE9, "DVE_READ_INDICES", "DveReadIndices", "dve_read_indices", Dve, Maintained, CAYMAN_UP, DveReadIndices(DveReadIndices), Run, "isa-facts-dve-pool §13.2";
            SELECT_REDUCE = 0xEA, "SELECT_REDUCE", "CopyPredicatedReduce", "select_reduce", Dve, Maintained, ALL, SelectReduce(SelectReduce), Run, "isa-facts-dve-pool §11";
            DMA_GATHER_TRANSPOSE = 0xF1, "DMA_GATHER_TRANSPOSE", "DmaGatherTranspose", "dma_gather_transpose", Dma, Maintained, CAYMAN_UP, DmaGatherTranspose(GatherTranspose), NotSupported(XPOSE_ORDER), "isa-facts-pe-act-dma §3.9";
        }
    };
}

macro_rules! opcode_table {
    ($( $(#[$attr:meta])* $C:ident = $v:literal, $hn:literal, $disp:literal, $mn:literal, $e:ident, $m:ident, $g:ident, $fam:ident($sv:ident), $exec:expr, $src:literal; )*) => {
        impl Opcode {
            $( $(#[$attr])* #[doc = $disp] pub const $C: Opcode = Opcode($v); )*
        }
        /// Every modelled opcode, in value order.
        pub const OPCODES: &[OpcodeInfo] = &[
            $( $(#[$attr])* OpcodeInfo { value: $v, header_name: $hn, display: $disp, mnemonic: $mn,
                            kind: Family::$fam.kind(),
                            engine: Engine::$e, maintenance: Maintenance::$m, gens: GenSet::$g,
                            sem: Sem::$fam(sem::$fam::$sv), family: Family::$fam,
                            alu: sem::$fam::$sv.alu(), form: sem::$fam::$sv.form(),
                            exec: { use Exec::*; $exec }, source: $src,
                            firmware_log: concat!("S: ", $disp) }, )*
        ];
    };
}

/// An opcode byte. Any value is representable; [`Opcode::info`] says whether tpb models it.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Opcode(pub u8);

for_each_opcode!(opcode_table);

/// Opcodes a source names that tpb does not model (they decode as opaque bundles).
pub const KNOWN_UNMODELLED: &[(u8, &str)] = &[
    (0x23, "ActivationTableLoad"),
    (0x26, "ActivateMultipass"),
    (0x68, "Gather"),
    (0x93, "TransposeTensorScalarArith"),
    (0xE3, "QuantizeMx"),
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
