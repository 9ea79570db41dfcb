//! Which NKI API tpb runs: one row per public name of `nki.language` and `nki.isa` (NKI
//! 0.6.0 and the legacy names public kernels still use, nki-api §2–§4), with what is
//! missing where a name does not run. `docs/nki-support.md` is generated from this table
//! and a Python test keeps the two and the `tpb.nki` modules in step.

/// How far tpb runs an NKI name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Runs as NKI specifies.
    Supported,
    /// Runs in part; the text says which forms.
    Partial(&'static str),
    /// Waits for an instruction tpb does not have yet (the text names it).
    NotYet(&'static str),
    /// Refused: the semantics are not public, or tpb does not model the feature.
    NotSupported(&'static str),
}

impl Status {
    /// `supported`, `partial`, `not yet` or `not supported`.
    pub const fn tag(self) -> &'static str {
        match self {
            Status::Supported => "supported",
            Status::Partial(_) => "partial",
            Status::NotYet(_) => "not yet",
            Status::NotSupported(_) => "not supported",
        }
    }

    /// The detail (empty for [`Status::Supported`]).
    pub const fn detail(self) -> &'static str {
        match self {
            Status::Supported => "",
            Status::Partial(s) | Status::NotYet(s) | Status::NotSupported(s) => s,
        }
    }
}

const DMA: &str = "DMAMEMCPY (0xB8) on the DMA queues and HBM tensors (issue 18b)";
const TT: &str = "TensorTensor (0x41 arith / 0x51 bitvec, issue 17a)";
const ACT: &str = "Activation on ACT (issue 18a)";
const MATMUL: &str = "MatMult on PE with PSUM accumulation (issue 18a)";
const DVE17B: &str = "the issue 17b DVE instructions (STT family, scan, cache reduce)";

/// `(module, name, status)`: module is `language` or `isa`.
pub const NKI_API: &[(&str, &str, Status)] = &[
    // nki.language: creation and memory.
    (
        "language",
        "ndarray",
        Status::Partial(
            "SBUF and PSUM tiles; HBM tensors need DMAMEMCPY (0xB8) and HBM (issue 18b)",
        ),
    ),
    (
        "language",
        "zeros",
        Status::Partial("on-chip tiles, filled by Iota with step 0 until Memset (issue 17a)"),
    ),
    ("language", "ones", Status::Partial("as zeros")),
    (
        "language",
        "full",
        Status::Partial("integer-valued fills, by Iota until Memset (issue 17a)"),
    ),
    ("language", "zeros_like", Status::Partial("as zeros")),
    ("language", "empty_like", Status::Supported),
    ("language", "par_dim", Status::Supported),
    ("language", "sbuf", Status::Supported),
    ("language", "psum", Status::Supported),
    ("language", "hbm", Status::NotYet(DMA)),
    ("language", "private_hbm", Status::NotYet(DMA)),
    ("language", "shared_hbm", Status::NotYet(DMA)),
    ("language", "shared_constant", Status::NotYet(DMA)),
    (
        "language",
        "shared_identity_matrix",
        Status::NotYet("Memset (issue 17a)"),
    ),
    (
        "language",
        "rand",
        Status::NotSupported("the random number generators' state is not public"),
    ),
    (
        "language",
        "random_seed",
        Status::NotSupported("the random number generators' state is not public"),
    ),
    // Indexing and loops.
    ("language", "arange", Status::Supported),
    ("language", "mgrid", Status::Supported),
    ("language", "ds", Status::Supported),
    ("language", "affine_range", Status::Supported),
    ("language", "sequential_range", Status::Supported),
    ("language", "static_range", Status::Supported),
    (
        "language",
        "dynamic_range",
        Status::NotSupported("on-device loops over registers are not modelled"),
    ),
    (
        "language",
        "fori_loop",
        Status::NotSupported("on-device loops over registers are not modelled"),
    ),
    (
        "language",
        "while_loop",
        Status::NotSupported("on-device loops over registers are not modelled"),
    ),
    ("language", "no_reorder", Status::Supported),
    ("language", "tile_size", Status::Supported),
    ("language", "program_id", Status::Supported),
    ("language", "num_programs", Status::Supported),
    ("language", "program_ndim", Status::Supported),
    ("language", "device_print", Status::Supported),
    // Data movement.
    ("language", "load", Status::NotYet(DMA)),
    ("language", "store", Status::NotYet(DMA)),
    ("language", "load_transpose2d", Status::NotYet(DMA)),
    ("language", "copy", Status::NotYet("TensorCopy (issue 17a)")),
    (
        "language",
        "broadcast_to",
        Status::NotYet("TensorCopy (issue 17a)"),
    ),
    (
        "language",
        "expand_dims",
        Status::NotSupported("views that add a dim to an on-chip tile"),
    ),
    (
        "language",
        "gather_flattened",
        Status::NotSupported("no gather instruction in tpb"),
    ),
    // Element-wise.
    (
        "language",
        "add",
        Status::Partial(concat!(
            "tile with a scalar or a (P, 1) tile (TensorScalar); two tiles need ",
            "TensorTensor (0x41 arith / 0x51 bitvec, issue 17a)"
        )),
    ),
    ("language", "subtract", Status::Partial("as add")),
    ("language", "multiply", Status::Partial("as add")),
    ("language", "maximum", Status::Partial("as add")),
    ("language", "minimum", Status::Partial("as add")),
    (
        "language",
        "divide",
        Status::NotSupported(
            "DIVIDE is not a hardware TensorScalar op (nki-api §2.8): multiply by reciprocal",
        ),
    ),
    ("language", "equal", Status::Partial("as add")),
    ("language", "not_equal", Status::Partial("as add")),
    ("language", "greater", Status::Partial("as add")),
    ("language", "greater_equal", Status::Partial("as add")),
    ("language", "less", Status::Partial("as add")),
    ("language", "less_equal", Status::Partial("as add")),
    (
        "language",
        "bitwise_and",
        Status::Partial("as add, integer tiles"),
    ),
    (
        "language",
        "bitwise_or",
        Status::Partial("as add, integer tiles"),
    ),
    (
        "language",
        "bitwise_xor",
        Status::Partial("as add, integer tiles"),
    ),
    (
        "language",
        "left_shift",
        Status::Partial("as add, integer tiles"),
    ),
    (
        "language",
        "right_shift",
        Status::Partial("as add, integer tiles"),
    ),
    ("language", "abs", Status::Supported),
    ("language", "negative", Status::Supported),
    ("language", "square", Status::NotYet(ACT)),
    ("language", "exp", Status::NotYet(ACT)),
    ("language", "log", Status::NotYet(ACT)),
    ("language", "sqrt", Status::NotYet(ACT)),
    ("language", "rsqrt", Status::NotYet(ACT)),
    (
        "language",
        "reciprocal",
        Status::NotYet("Reciprocal (issue 17a)"),
    ),
    ("language", "tanh", Status::NotYet(ACT)),
    ("language", "sigmoid", Status::NotYet(ACT)),
    ("language", "relu", Status::NotYet(ACT)),
    ("language", "gelu", Status::NotYet(ACT)),
    ("language", "silu", Status::NotYet(ACT)),
    ("language", "erf", Status::NotYet(ACT)),
    ("language", "sin", Status::NotYet(ACT)),
    ("language", "cos", Status::NotYet(ACT)),
    // Reductions, matmul, misc.
    (
        "language",
        "sum",
        Status::NotYet("TensorReduce (issue 17a)"),
    ),
    (
        "language",
        "max",
        Status::NotYet("TensorReduce (issue 17a)"),
    ),
    (
        "language",
        "min",
        Status::NotYet("TensorReduce (issue 17a)"),
    ),
    (
        "language",
        "mean",
        Status::NotYet("TensorReduce (issue 17a)"),
    ),
    (
        "language",
        "prod",
        Status::NotYet("TensorReduce (issue 17a)"),
    ),
    (
        "language",
        "var",
        Status::NotYet("TensorReduce (issue 17a)"),
    ),
    (
        "language",
        "all",
        Status::NotYet("TensorReduce (issue 17a)"),
    ),
    ("language", "matmul", Status::NotYet(MATMUL)),
    (
        "language",
        "transpose",
        Status::NotYet("Transpose on PE (issue 18a) / StreamTranspose (issue 17a)"),
    ),
    (
        "language",
        "where",
        Status::NotYet("CopyPredicated (issue 17a)"),
    ),
    ("language", "softmax", Status::NotYet(ACT)),
    ("language", "rms_norm", Status::NotYet(ACT)),
    (
        "language",
        "dropout",
        Status::NotSupported("the random number generators' state is not public"),
    ),
    // nki.isa.
    ("isa", "iota", Status::Supported),
    (
        "isa",
        "affine_select",
        Status::Partial("cmp_op greater, greater_equal, equal, not_equal (AFFINE_SELECT_CMP)"),
    ),
    ("isa", "tensor_scalar", Status::Supported),
    ("isa", "range_select", Status::Partial("reduce_cmd=idle")),
    ("isa", "select", Status::Supported),
    ("isa", "get_nc_version", Status::Supported),
    ("isa", "tensor_tensor", Status::NotYet(TT)),
    (
        "isa",
        "tensor_copy",
        Status::NotYet("TensorCopy / Cast (issue 17a)"),
    ),
    (
        "isa",
        "tensor_copy_predicated",
        Status::NotYet("CopyPredicated (issue 17a)"),
    ),
    ("isa", "memset", Status::NotYet("Memset (issue 17a)")),
    (
        "isa",
        "reciprocal",
        Status::NotYet("Reciprocal (issue 17a)"),
    ),
    (
        "isa",
        "tensor_reduce",
        Status::NotYet("TensorReduce (issue 17a)"),
    ),
    (
        "isa",
        "nc_stream_shuffle",
        Status::NotYet("StreamShuffle (issue 17a)"),
    ),
    (
        "isa",
        "nc_transpose",
        Status::NotYet("Transpose on PE (issue 18a) / StreamTranspose (issue 17a)"),
    ),
    ("isa", "scalar_tensor_tensor", Status::NotYet(DVE17B)),
    ("isa", "tensor_tensor_scan", Status::NotYet(DVE17B)),
    ("isa", "tensor_scalar_reduce", Status::NotYet(DVE17B)),
    ("isa", "tensor_scalar_cumulative", Status::NotYet(DVE17B)),
    ("isa", "select_reduce", Status::NotYet(DVE17B)),
    (
        "isa",
        "max8",
        Status::NotYet("the search cluster (issue 17b)"),
    ),
    (
        "isa",
        "nc_find_index8",
        Status::NotYet("the search cluster (issue 17b)"),
    ),
    (
        "isa",
        "nc_match_replace8",
        Status::NotYet("the search cluster (issue 17b)"),
    ),
    ("isa", "nc_matmul", Status::NotYet(MATMUL)),
    ("isa", "activation", Status::NotYet(ACT)),
    ("isa", "activation_reduce", Status::NotYet(ACT)),
    (
        "isa",
        "exponential",
        Status::NotYet("Exponential (issue 18a)"),
    ),
    ("isa", "dma_copy", Status::NotYet(DMA)),
    ("isa", "dma_transpose", Status::NotYet(DMA)),
    ("isa", "dma_compute", Status::NotYet(DMA)),
    (
        "isa",
        "tensor_partition_reduce",
        Status::NotSupported("no cross-partition reduce instruction in tpb"),
    ),
    (
        "isa",
        "activate2",
        Status::NotSupported("NC-v4 only; no maverick Activate2 facts"),
    ),
    (
        "isa",
        "nc_matmul_mx",
        Status::NotSupported("NC-v4 MX formats are not modelled"),
    ),
    (
        "isa",
        "quantize_mx",
        Status::NotSupported("NC-v4 MX formats are not modelled"),
    ),
    (
        "isa",
        "bn_stats",
        Status::NotSupported("the BatchNorm state's semantics are not public"),
    ),
    (
        "isa",
        "bn_aggr",
        Status::NotSupported("the BatchNorm state's semantics are not public"),
    ),
    (
        "isa",
        "rng",
        Status::NotSupported("the random number generators' state is not public"),
    ),
    (
        "isa",
        "rand2",
        Status::NotSupported("the random number generators' state is not public"),
    ),
    (
        "isa",
        "set_rng_seed",
        Status::NotSupported("the random number generators' state is not public"),
    ),
    (
        "isa",
        "rand_set_state",
        Status::NotSupported("the random number generators' state is not public"),
    ),
    (
        "isa",
        "rand_get_state",
        Status::NotSupported("the random number generators' state is not public"),
    ),
    (
        "isa",
        "dropout",
        Status::NotSupported("the random number generators' state is not public"),
    ),
    (
        "isa",
        "local_gather",
        Status::NotSupported("no gather instruction in tpb"),
    ),
    (
        "isa",
        "nc_n_gather",
        Status::NotSupported("no gather instruction in tpb"),
    ),
    (
        "isa",
        "sequence_bounds",
        Status::NotSupported("no instruction for it in tpb"),
    ),
    (
        "isa",
        "nonzero_with_count",
        Status::NotSupported("no instruction for it in tpb"),
    ),
    (
        "isa",
        "topk",
        Status::NotSupported("no instruction for it in tpb"),
    ),
    (
        "isa",
        "core_barrier",
        Status::NotSupported("one NeuronCore is modelled (no LNC2)"),
    ),
    (
        "isa",
        "sendrecv",
        Status::NotSupported("one NeuronCore is modelled (no LNC2)"),
    ),
    (
        "isa",
        "register_alloc",
        Status::NotSupported("virtual registers and on-device control flow are not modelled"),
    ),
    (
        "isa",
        "register_move",
        Status::NotSupported("virtual registers and on-device control flow are not modelled"),
    ),
    (
        "isa",
        "register_load",
        Status::NotSupported("virtual registers and on-device control flow are not modelled"),
    ),
    (
        "isa",
        "register_store",
        Status::NotSupported("virtual registers and on-device control flow are not modelled"),
    ),
];

/// The status of `module.name`, if the table has it.
pub fn status(module: &str, name: &str) -> Option<Status> {
    NKI_API
        .iter()
        .find(|(m, n, _)| *m == module && *n == name)
        .map(|&(_, _, s)| s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_not_yet_names_an_instruction() {
        for (k, (m, n, s)) in NKI_API.iter().enumerate() {
            assert!(
                !NKI_API[..k].iter().any(|(m2, n2, _)| m2 == m && n2 == n),
                "{m}.{n} twice"
            );
            assert!(matches!(*m, "language" | "isa"));
            if let Status::NotYet(what) = s {
                assert!(what.contains("issue"), "{m}.{n}: {what}");
            }
        }
        assert_eq!(status("isa", "iota"), Some(Status::Supported));
        assert_eq!(status("isa", "frobnicate"), None);
    }
}
