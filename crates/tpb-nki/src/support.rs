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

/// `(module, name, status)`: module is `language` or `isa`.
pub const NKI_API: &[(&str, &str, Status)] = &[
    ("language", "ndarray", Status::Supported),
    ("language", "zeros", Status::Partial("on-chip tiles (an allocation and a Memset); an HBM tensor is filled by a store")),
    ("language", "ones", Status::Partial("as zeros")),
    ("language", "full", Status::Partial("as zeros")),
    ("language", "zeros_like", Status::Partial("as zeros")),
    ("language", "empty_like", Status::Supported),
    ("language", "par_dim", Status::Supported),
    ("language", "sbuf", Status::Supported),
    ("language", "psum", Status::Supported),
    ("language", "hbm", Status::Supported),
    ("language", "private_hbm", Status::Supported),
    ("language", "shared_hbm", Status::Supported),
    ("language", "shared_constant", Status::NotYet("a tpb.nki lowering of constant HBM tensors (issue 19 follow-up)")),
    ("language", "shared_identity_matrix", Status::Supported),
    ("language", "rand", Status::NotSupported("the random number generators' state is not public")),
    ("language", "random_seed", Status::NotSupported("the random number generators' state is not public")),
    ("language", "arange", Status::Supported),
    ("language", "mgrid", Status::Supported),
    ("language", "ds", Status::Supported),
    ("language", "affine_range", Status::Supported),
    ("language", "sequential_range", Status::Supported),
    ("language", "static_range", Status::Supported),
    ("language", "dynamic_range", Status::NotSupported("on-device loops over registers are not modelled")),
    ("language", "fori_loop", Status::NotSupported("on-device loops over registers are not modelled")),
    ("language", "while_loop", Status::NotSupported("on-device loops over registers are not modelled")),
    ("language", "no_reorder", Status::Supported),
    ("language", "tile_size", Status::Supported),
    ("language", "program_id", Status::Supported),
    ("language", "num_programs", Status::Supported),
    ("language", "program_ndim", Status::Supported),
    ("language", "device_print", Status::Supported),
    ("language", "load", Status::Supported),
    ("language", "store", Status::Partial("from SBUF tiles into HBM (a PSUM value is refused, as NKI 0.3.0+ dma_copy does: copy it to SBUF first; an SBUF or PSUM dst is refused, as NKI refuses it)")),
    ("language", "load_transpose2d", Status::NotYet("DMA_TRANSPOSE (0xBD), whose tile order is not public; or the PE transpose (issue 18a)")),
    ("language", "copy", Status::Supported),
    ("language", "broadcast_to", Status::Supported),
    ("language", "expand_dims", Status::NotSupported("views that add a dim to an on-chip tile")),
    ("language", "gather_flattened", Status::NotSupported("no gather instruction in tpb")),
    ("language", "add", Status::Supported),
    ("language", "subtract", Status::Supported),
    ("language", "multiply", Status::Supported),
    ("language", "maximum", Status::Supported),
    ("language", "minimum", Status::Supported),
    ("language", "divide", Status::NotSupported("DIVIDE is not a hardware TensorScalar op (nki-api §2.8): multiply by reciprocal")),
    ("language", "equal", Status::Supported),
    ("language", "not_equal", Status::Supported),
    ("language", "greater", Status::Supported),
    ("language", "greater_equal", Status::Supported),
    ("language", "less", Status::Supported),
    ("language", "less_equal", Status::Supported),
    ("language", "bitwise_and", Status::Partial("integer tiles")),
    ("language", "bitwise_or", Status::Partial("integer tiles")),
    ("language", "bitwise_xor", Status::Partial("integer tiles")),
    ("language", "left_shift", Status::Partial("integer tiles")),
    ("language", "right_shift", Status::Partial("integer tiles")),
    ("language", "abs", Status::Supported),
    ("language", "negative", Status::Supported),
    ("language", "square", Status::Supported),
    ("language", "exp", Status::Partial("on ACT (Activate 0x21); approximate: the hardware evaluates it from unpublished tables, tpb from its definition (docs/reference/pe-act.md)")),
    ("language", "log", Status::Partial("on ACT (Activate 0x21); approximate: the hardware evaluates it from unpublished tables, tpb from its definition (docs/reference/pe-act.md)")),
    ("language", "sqrt", Status::Partial("on ACT (Activate 0x21); approximate: the hardware evaluates it from unpublished tables, tpb from its definition (docs/reference/pe-act.md)")),
    ("language", "rsqrt", Status::Partial("on ACT (Activate 0x21); approximate: the hardware evaluates it from unpublished tables, tpb from its definition (docs/reference/pe-act.md)")),
    ("language", "reciprocal", Status::Supported),
    ("language", "tanh", Status::Partial("on ACT (Activate 0x21); approximate: the hardware evaluates it from unpublished tables, tpb from its definition (docs/reference/pe-act.md)")),
    ("language", "sigmoid", Status::Partial("on ACT (Activate 0x21); approximate: the hardware evaluates it from unpublished tables, tpb from its definition (docs/reference/pe-act.md)")),
    ("language", "relu", Status::Supported),
    ("language", "gelu", Status::Partial("on ACT (Activate 0x21); approximate: the hardware evaluates it from unpublished tables, tpb from its definition (docs/reference/pe-act.md)")),
    ("language", "silu", Status::Partial("on ACT (Activate 0x21); approximate: the hardware evaluates it from unpublished tables, tpb from its definition (docs/reference/pe-act.md)")),
    ("language", "erf", Status::Partial("on ACT (Activate 0x21); approximate: the hardware evaluates it from unpublished tables, tpb from its definition (docs/reference/pe-act.md)")),
    ("language", "sin", Status::Partial("on ACT (Activate 0x21); approximate, and without the range reduction NKI adds: inputs outside [-pi, pi] are counted in the report, where the hardware table is invalid")),
    ("language", "cos", Status::NotSupported("no activation function id computes cos (the compiler's catalog, isa-facts-pe-act-dma §2.9)")),
    ("language", "arctan", Status::Partial("on ACT (Activate 0x21); approximate: the hardware evaluates it from unpublished tables, tpb from its definition (docs/reference/pe-act.md)")),
    ("language", "softplus", Status::Partial("on ACT (Activate 0x21); approximate: the hardware evaluates it from unpublished tables, tpb from its definition (docs/reference/pe-act.md)")),
    ("language", "mish", Status::Partial("on ACT (Activate 0x21); approximate: the hardware evaluates it from unpublished tables, tpb from its definition (docs/reference/pe-act.md)")),
    ("language", "gelu_apprx_tanh", Status::Partial("on ACT (Activate 0x21); approximate: the hardware evaluates it from unpublished tables, tpb from its definition (docs/reference/pe-act.md)")),
    ("language", "gelu_apprx_sigmoid", Status::Partial("on ACT (Activate 0x21); approximate: the hardware evaluates it from unpublished tables, tpb from its definition (docs/reference/pe-act.md)")),
    ("language", "gelu_dx", Status::Partial("on ACT (Activate 0x21); approximate: the hardware evaluates it from unpublished tables, tpb from its definition (docs/reference/pe-act.md)")),
    ("language", "gelu_apprx_sigmoid_dx", Status::Partial("on ACT (Activate 0x21); approximate: the hardware evaluates it from unpublished tables, tpb from its definition (docs/reference/pe-act.md)")),
    ("language", "silu_dx", Status::Partial("on ACT (Activate 0x21); approximate: the hardware evaluates it from unpublished tables, tpb from its definition (docs/reference/pe-act.md)")),
    ("language", "erf_dx", Status::Partial("on ACT (Activate 0x21); approximate: the hardware evaluates it from unpublished tables, tpb from its definition (docs/reference/pe-act.md)")),
    ("language", "sign", Status::Supported),
    ("language", "tan", Status::NotSupported("no activation function id computes tan (the compiler's catalog, isa-facts-pe-act-dma §2.9)")),
    ("language", "sum", Status::Supported),
    ("language", "max", Status::Supported),
    ("language", "min", Status::Supported),
    ("language", "mean", Status::Supported),
    ("language", "prod", Status::Supported),
    ("language", "var", Status::NotSupported("bn_stats / bn_aggr state semantics are not public")),
    ("language", "all", Status::NotYet("a logical-and TensorReduce form in tpb.nki (issue 19 follow-up)")),
    ("language", "matmul", Status::Partial("on the PE into an fp32 PSUM tile; `acc += nl.matmul(...)` is one accumulating Matmul; transpose_x=False transposes x on the PE first; mask= is refused")),
    ("language", "transpose", Status::Partial("tiles up to 128 × 128 through the PE into PSUM (fp32 bit-accurate on cayman/mariana; other dtypes through an fp32 PSUM result and a copy); mask= is refused")),
    ("language", "where", Status::NotYet("a float-condition select: CopyPredicated takes integer predicates (issue 17a); tpb.nki lowering not written yet")),
    ("language", "softmax", Status::Partial("the last free axis of a 2-D tile: TensorReduce -max, Activate exp with the row-sum accumulator, Reciprocal, TensorScalar multiply (tpb's lowering); approximate")),
    ("language", "rms_norm", Status::NotSupported("NKI documents only x / RMS(x) * w: where epsilon enters, what n means beside axis and how w broadcasts are not public; write it with nl.square/nl.sum/nl.rsqrt")),
    ("language", "dropout", Status::NotSupported("the random number generators' state is not public")),
    ("isa", "iota", Status::Supported),
    ("isa", "affine_select", Status::Partial("cmp_op greater, greater_equal, equal, not_equal (AFFINE_SELECT_CMP)")),
    ("isa", "tensor_scalar", Status::Supported),
    ("isa", "range_select", Status::Partial("reduce_cmd=idle")),
    ("isa", "select", Status::Supported),
    ("isa", "get_nc_version", Status::Supported),
    ("isa", "tensor_tensor", Status::Supported),
    ("isa", "tensor_copy", Status::Supported),
    ("isa", "tensor_copy_predicated", Status::Supported),
    ("isa", "memset", Status::Supported),
    ("isa", "reciprocal", Status::Supported),
    ("isa", "tensor_reduce", Status::Supported),
    ("isa", "nc_stream_shuffle", Status::Partial("LoadMaskSelect then StreamShuffle, by tpb's assumed permutation source (the most recent LoadMaskSelect table, isa-facts-dve-pool Q20); a mask entry reading past src's partitions into dst is refused")),
    ("isa", "nc_transpose", Status::Partial("engine.vector on whole 32×32 SBUF tiles (StreamTranspose); engine.tensor up to 128 × 128 into PSUM: fp32 bit-accurate on cayman/mariana, other dtypes need an fp32 dst (the 16/8-bit PSUM transpose layout is not public)")),
    ("isa", "scalar_tensor_tensor", Status::Supported),
    ("isa", "tensor_tensor_scan", Status::Supported),
    ("isa", "tensor_scalar_reduce", Status::Partial("reverse0=False (the ISA requires no reversal)")),
    ("isa", "tensor_scalar_cumulative", Status::Supported),
    ("isa", "select_reduce", Status::Partial("reduce_op maximum, reverse_pred=False (its encoding is not public)")),
    ("isa", "max8", Status::Supported),
    ("isa", "nc_find_index8", Status::Supported),
    ("isa", "nc_match_replace8", Status::Supported),
    ("isa", "nc_matmul", Status::Partial("fp32 PSUM dst on sunda/cayman/mariana, exact per tpb's summation order; tile_position/tile_size, perf_mode double_row, fp8/16-bit is_transpose and a bf16 dst are refused (encodings or layouts not public)")),
    ("isa", "activation", Status::Partial("reduce_cmd idle, reset, reduce, reset_reduce (load_reduce has no NKI value argument); op prelu refused (its slope operand is not an activation argument); table functions approximate")),
    ("isa", "activation_reduce", Status::Partial("reduce_op add; table functions approximate")),
    ("isa", "exponential", Status::Partial("mariana and later (the firmware does not wire it before v4); reduce_cmd idle, reduce, reset_reduce, load_reduce (reset alone is outside the ISA's accumulator contract); approximate")),
    ("isa", "dma_copy", Status::Partial("direct copies between HBM and SBUF tiles (DMAMEMCPY 0xB8); indirect copies are refused")),
    ("isa", "dma_transpose", Status::NotSupported("DMA_TRANSPOSE (0xBD) decodes and validates, but its tile order is not public")),
    ("isa", "dma_compute", Status::NotYet("a tpb.nki call over DMAMEMCPY's compute_op (which runs; issue 19 follow-up)")),
    ("isa", "tensor_partition_reduce", Status::NotSupported("no cross-partition reduce instruction in tpb")),
    ("isa", "activate2", Status::NotSupported("NC-v4 only; no maverick Activate2 facts")),
    ("isa", "nc_matmul_mx", Status::NotSupported("NC-v4 MX formats are not modelled")),
    ("isa", "quantize_mx", Status::NotSupported("NC-v4 MX formats are not modelled")),
    ("isa", "bn_stats", Status::NotSupported("the BatchNorm state's semantics are not public")),
    ("isa", "bn_aggr", Status::NotSupported("the BatchNorm state's semantics are not public")),
    ("isa", "rng", Status::NotSupported("the random number generators' state is not public")),
    ("isa", "rand2", Status::NotSupported("the random number generators' state is not public")),
    ("isa", "set_rng_seed", Status::NotSupported("the random number generators' state is not public")),
    ("isa", "rand_set_state", Status::NotSupported("the random number generators' state is not public")),
    ("isa", "rand_get_state", Status::NotSupported("the random number generators' state is not public")),
    ("isa", "dropout", Status::NotSupported("the random number generators' state is not public")),
    ("isa", "local_gather", Status::NotSupported("no gather instruction in tpb")),
    ("isa", "nc_n_gather", Status::NotSupported("no gather instruction in tpb")),
    ("isa", "sequence_bounds", Status::NotSupported("no instruction for it in tpb")),
    ("isa", "nonzero_with_count", Status::NotSupported("no instruction for it in tpb")),
    ("isa", "topk", Status::NotSupported("no instruction for it in tpb")),
    ("isa", "core_barrier", Status::NotSupported("one NeuronCore is modelled (no LNC2)")),
    ("isa", "sendrecv", Status::NotSupported("one NeuronCore is modelled (no LNC2)")),
    ("isa", "register_alloc", Status::NotSupported("virtual registers and on-device control flow are not modelled")),
    ("isa", "register_move", Status::NotSupported("virtual registers and on-device control flow are not modelled")),
    ("isa", "register_load", Status::NotSupported("virtual registers and on-device control flow are not modelled")),
    ("isa", "register_store", Status::NotSupported("virtual registers and on-device control flow are not modelled")),
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
