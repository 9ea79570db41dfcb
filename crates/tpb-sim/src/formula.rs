//! Which published cost formula prices an instruction (docs/engines.md "Published figures"):
//! the formulas as data, below both the executor and the timing model. Each family names its
//! own in its executor's file (`exec/family/<method>.rs`, `COST`), beside what it computes;
//! [`Formula::of`] is generated from the family list in `exec/mod.rs`
//! (`executors_by_family!`), so a new family does not build until it names one. The
//! formulas are evaluated by `engines::Costs::instruction_cycles` (`engines/timing.rs`) with
//! the cases of `engines/cost.rs`. Sources, as there: [ISA-2.26] the "Estimated instruction
//! cost" sections of aws-neuron-sdk `general/nki/api/nki/isa/__init__.py` at Neuron 2.26.0;
//! [ARCH1]/[ARCH2]/[ARCH3] the three architecture guides and [PERF] `nki_perf_guide.rst`
//! (commit 81ce03ae).

/// One published cost formula (or the assumption used where none is published).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Formula {
    /// `max(MIN_II, N)`: activation, tensor_scalar, tensor_copy, range_select,
    /// nc_stream_shuffle, nc_transpose on the vector engine [ISA-2.26]; tensor_scalar and
    /// tensor_copy get the trn2 performance mode ([ARCH2] "Vector Engine Performance Mode").
    MinIi {
        /// tensor_scalar / tensor_copy: the performance-mode lift applies.
        perf_mode: bool,
    },
    /// tensor_tensor [ISA-2.26]: `max(MIN_II, N)` with one input in PSUM and the other in
    /// SBUF, or both in SBUF with all dtypes bf16, op add/multiply/subtract and contiguous
    /// inputs; else `max(MIN_II, 2N)`. From trn2 on, both inputs in SBUF and every dtype
    /// bf16/fp16 is the 2× lift of [ARCH2] (2N → N).
    TensorTensor,
    /// tensor_tensor_scan: `max(MIN_II, 2N)` [ISA-2.26].
    Scan,
    /// scalar_tensor_tensor: `N` when data and operand1 are bf16, op0 subtract, op1
    /// multiply and N even; else `2N` [ISA-2.26].
    ScalarTensorTensor,
    /// tensor_copy_predicated: `max(MIN_II, N)` when src and predicate are one in SBUF and
    /// one in PSUM; `max(MIN_II, 2N)` when both are in SBUF [ISA-2.26].
    Predicated,
    /// reciprocal: `max(MIN_II, 8N)` [ISA-2.26].
    Reciprocal,
    /// memset: `max(MIN_II, N/2)` for zero into bf16/fp16, else `max(MIN_II, N)`; N the
    /// output's elements per partition [ISA-2.26].
    Memset,
    /// tensor_reduce: `N/2` for bf16 in and out with add or max, else `N` [ISA-2.26].
    Reduce,
    /// max8, nc_find_index8, nc_match_replace8: `N` [ISA-2.26; 2.23 for match_replace8].
    Linear,
    /// iota (N of the output), affine_select: `GPSIMD_START + N` [ISA-2.26].
    GpsimdStart,
    /// The second instruction of activation_reduce / tensor_scalar_reduce (the accumulator
    /// read): `≈ 64` cycles [ARCH1 L492], which with the first makes the documented
    /// `max(MIN_II, N) + MIN_II`.
    ReadAccumulator,
    /// Exponential on the vector engine: 4× the throughput of the ACT exp [ARCH3 L179]:
    /// `max(MIN_II, ⌈N / 4⌉)`.
    DveExp,
    /// nc_matmul: `max(min(64, N_stationary), N_moving)`, × 4 for fp32 inputs; a
    /// transpose-mode Matmul is nc_transpose on the tensor engine, `max(P, min(64, F))`
    /// (the same formula with the data as stationary and the K × K identity as moving)
    /// [ISA-2.26; ARCH1 L262–270].
    Matmul,
    /// LoadStationary: fast load, 4× faster than a Matmul of the same free size, in the
    /// background of the previous Matmul [ARCH1 L282–300; PERF L676–683].
    LoadWeights,
    /// An instruction without memory operands (EventSemaphore): `SYNC_CYCLES` (ASSUMED).
    Sync,
    /// A DMA request: priced by the DMA model (issue on its engine, transfer on the DMA
    /// engines), not by a compute formula.
    Dma,
    /// Nothing published: `max(MIN_II, N)` (ASSUMED, assumption `engine-timing`).
    Assumed,
}

impl Formula {
    /// Whether N is the output's elements per partition (iota, memset) rather than the
    /// input's.
    pub(crate) const fn n_from_output(self) -> bool {
        matches!(self, Formula::Memset | Formula::GpsimdStart)
    }

    /// Whether a public formula backs it.
    pub const fn published(self) -> bool {
        !matches!(self, Formula::Assumed | Formula::Sync)
    }
}
