//! Every ASSUMED machine behaviour of the simulator, in one place.
//!
//! No public source settles these points (decisions.md tags them ASSUMED, or leaves them
//! open and the simulator had to pick). Each one is a constant or a small function here;
//! the executors in [`crate::exec`](self) call these and never re-decide the question, so a
//! later fact changes the simulator in one edit. [`ASSUMPTIONS`] lists them for docs/reference/assumptions.md
//! and for `tpb` to print.
//!
//! Numeric assumptions (FP8 variants, NaN patterns, DIVIDE/POW/RSQRT accuracy, shift
//! counts) belong to [`crate::numerics`] and are documented there; this module only covers
//! how instructions use the machine.

use crate::numerics::{alu_arith, alu_bitvec, alu_int_as, from_f32, Fp8Config, NumError};
use tpb_isa::opcode::{Maintenance, OpcodeInfo};
use tpb_isa::wire::{Addr4, Addr8, Mem2d};
use tpb_isa::{AccumCmd, AluOp, Dtype, Gen, RevOps};

/// One documented assumption.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Assumption {
    /// A short stable identifier, e.g. `bypass-passes-data`.
    pub id: &'static str,
    /// The decisions.md section or fact-sheet question it answers.
    pub source: &'static str,
    /// What the simulator does, in one or two sentences.
    pub text: &'static str,
}

/// The simulator's ASSUMED behaviours, in the order docs/reference/assumptions.md lists them.
pub const ASSUMPTIONS: &[Assumption] = &[
    Assumption {
        id: "initial-state",
        source: "decisions §5.2, §3.4, §3.5, §3.8",
        text: "A new machine has SBUF/PSUM filled with zero bytes, every byte marked \
               uninitialised, registers 0, every flop slot 0 with nothing loaded, semaphores 0 \
               and events clear.",
    },
    Assumption {
        id: "flop-layout",
        source: "decisions §3.5, §4.11",
        text: "Per channel 8 × 32-bit flop slots. ImmLd writes slots 0..W in element order \
               (slot 0 fastest); the sunda Dual reads pair i from slots (2i, 2i+1).",
    },
    Assumption {
        id: "loader-state-per-channel",
        source: "decisions §3.5, §3.6",
        text: "The loaded count and kind (arith/bitvec) are remembered per channel: an ImmLd \
               updates only its active channels, and PtrMulti warns for every active channel \
               whose loaded count is below what it reads or whose kind differs.",
    },
    Assumption {
        id: "bypass-passes-data",
        source: "decisions §4.11, seed 000 §4b",
        text: "A BYPASS stage passes its data input (the tensor element or the previous \
               stage's result) whatever reverse_operands says; every other op takes the \
               reversed operands literally (a reversed unary op applies to the scalar). So \
               PtrMulti Both computes `scalar op tensor`, as the seed's pseudo-code says.",
    },
    Assumption {
        id: "reads-before-writes",
        source: "decisions §3.9, §3.3",
        text: "Every read of an instruction sees the state before the instruction: in-place \
               and overlapping operands read old values. Writes land in element order, so the \
               last of several writes to one element wins.",
    },
    Assumption {
        id: "ramp-wraps",
        source: "decisions §4.9",
        text: "The Iota / AffineSelect ramp `base + Σ index·step + channel·channel_multiplier` \
               is computed in wrapping 32-bit two's complement; `channel` is the relative \
               channel 0..num_active_channels.",
    },
    Assumption {
        id: "iota-int-wraps",
        source: "decisions §4.9",
        text: "Iota into an integer dtype keeps the low bits of the 32-bit ramp (wraps); into \
               a float dtype the ramp converts to FP32 (RNE) and then to the dtype (RNE).",
    },
    Assumption {
        id: "pointer-scalar-dtype",
        source: "isa-facts §13.11",
        text: "A pointer immediate (TensorScalar imm_src Ptr, TensorScalarPtr) reads, per \
               channel, 4 bytes as FP32 on the arith path, one in_dtype element \
               (zero-extended) on the bitvec path, and 4 raw bytes on maverick's integer arm. \
               RangeSelect pointer bounds read 4 bytes as FP32.",
    },
    Assumption {
        id: "register-pointer",
        source: "isa-facts §13.11, decisions §2.4",
        text: "A register pointer immediate (imm_src RegPtr) and a register-form ADDR4 (marker \
               0x80) name a register holding an immediate SBUF/PSUM byte address (marker bits \
               clear); it is then located and checked like an immediate. Any other register \
               content is refused as not supported.",
    },
    Assumption {
        id: "ts-select-operands",
        source: "isa-facts §10.1",
        text: "TensorScalarSelect: an inline src1 is the low dtype-size bytes of the \
               immediate; a pointer src1 is one dtype element per channel; a pointer predicate \
               is one pred_imm_dtype element per channel, true when nonzero.",
    },
    Assumption {
        id: "range-select-index",
        source: "isa-facts §10.2, nki-semantics §1.4",
        text: "RangeSelect compares the FP32 value `base + k` (k = element index in walk \
               order, one FP32 addition) with the two bounds; a kept element is copied bit for \
               bit when in == out dtype, otherwise converted through FP32; others get fill_val \
               converted to the output dtype.",
    },
    Assumption {
        id: "integer-arm-dtypes",
        source: "decisions §4.12, isa-facts §7 (maverick is_valid_int_aluop_dve)",
        text: "Maverick's integer-band TensorScalar ops run on 32-bit integers: the element is \
               sign- or zero-extended per in_dtype, the scalar is the raw 32-bit immediate, ops \
               in both signedness lists follow in_dtype, and the result keeps the low bits of \
               out_dtype. A float in or out dtype with an integer-band op is refused as not \
               supported.",
    },
    Assumption {
        id: "event-timing",
        source: "decisions §3.8",
        text: "With one in-order stream, `_READ` and `_COMPLETE` updates both apply right \
               after the instruction; `*_THEN_CLEAR`/`*_THEN_SET` waits change the event \
               before the update is applied.",
    },
    Assumption {
        id: "event-conflicts",
        source: "isa-facts §1.3 (compiler simulator)",
        text: "Setting an event that is already set, or clearing one that is clear, is a \
               fault (the compiler's simulator throws / treats it as fatal).",
    },
    Assumption {
        id: "semaphore-arithmetic",
        source: "decisions §3.8, isa-facts §1.3",
        text: "Semaphores are i32 and wrap; SEM_INC/SEM_DEC step by 1 whatever the value \
               field; `_REG` waits and updates read register[value], and a value ≥ 64 is a \
               fault.",
    },
    Assumption {
        id: "event-semaphore-order",
        source: "isa-facts §1.3 (EventSemaphore layout), decisions §3.8",
        text: "EventSemaphore (0xA0) checks wait 0 (the EVENTS preamble) and wait 1 (the body) \
               against the state before it, then applies wait 1's own event effect and the \
               body's update, then the preamble's wait effect; an unmet wait is a fault, as for \
               the preamble. The preamble's own update must be none (a validation rule).",
    },
    Assumption {
        id: "indirect-marker",
        source: "seed 001 'mem4d_valid', isa-facts §2.1, decisions §3.10",
        text: "ADDR4 marker 0x20 / 0xA0 is the indirect form, not a PSUM flag (seed 001's \
               mem4d_valid comment says 'PSUM / 2nd-window'): PSUM is told by the address \
               window, the packer never sets 0x20, a 4D destination with it carries a second \
               address at +4 (validated as one), and `tpb run` refuses indirect addresses as \
               not supported.",
    },
    Assumption {
        id: "v4-tensor4d-bound",
        source: "seed 001 'tensor4d_valid — the source check', isa-facts §3.5",
        text: "The compiler model's v4 (mariana) tensor4d_valid bound (byte address <= \
               0x3FFFFF, bits 25-28 clear in the plain case) is not checked: under the header \
               address map (partition x 256 KiB, PSUM at 1<<25) it would refuse every 4D \
               source from partition 16 up or in PSUM, which tensor_start_addr_valid accepts, \
               and the exempt 'quadrant' case is not described.",
    },
    Assumption {
        id: "firmware-stub-scope",
        source: "decisions §3.7",
        text: "With firmware stubs on, ImmLd and PtrMulti on cayman, mariana and maverick \
               (not sunda, whose image is not public) are validated, their wait and update \
               still apply, and they change nothing else: a log line and a warning.",
    },
    Assumption {
        id: "uninitialised-reads",
        source: "decisions §5.2",
        text: "An element read is uninitialised when any of its bytes was never written by \
               the host or an instruction; one warning per operand per instruction. \
               TensorScalarSelect's src0 counts only on channels that select it.",
    },
    Assumption {
        id: "range-select-reduce",
        source: "isa-facts §10.2",
        text: "RangeSelect with reduce_cmd other than Idle is refused as not supported: the \
               read-out of the running max is not public.",
    },
    Assumption {
        id: "engine-timing",
        source: "docs/engines.md \"Published figures\" (aws-neuron-sdk v2.26.0 nki/isa/__init__.py; the architecture guides and nki_perf_guide.rst @81ce03ae)",
        text: "The multi-engine schedule uses the constants of `TIMING_CONSTANTS` (overridable). \
               Each opcode family is priced by the published formula of its NKI call \
               (engines::cost::Formula) over N, the elements per partition of its input \
               (its output for iota and memset), with the dtype, location and contiguity \
               cases the docs give; a family with no published formula takes max(MIN_II, N) \
               (ASSUMED), an instruction with no memory operand SYNC_CYCLES, and every DVE \
               formula is floored at MIN_II (ASSUMED: the docs call MIN_II the minimum \
               initiation interval). A most-minor stride over ACCESS_STRIDE_LIMIT_BYTES \
               doubles N. A PE or ACT instruction that starts with its engine's pipeline \
               empty adds TENSOR_ACCESS_OVERHEAD; otherwise one that reads what its engine's \
               previous instruction wrote adds DEPENDENT_OVERHEAD, and on DVE/ACT/POOL also \
               SMALL_TILE_OVERHEAD when N is below MIN_II. A LoadWeights takes \
               columns × (PE_FP32_FACTOR for fp32) / PE_FAST_LOAD_SPEEDUP and may start when \
               the previous Matmul starts (background load); the next Matmul waits for it. \
               Cycles convert to time with the engine's clock for the generation. An \
               instruction executes functionally when it starts.",
    },
    Assumption {
        id: "engine-sync-timing",
        source: "decisions §3.8, isa-facts §1.3",
        text: "Across engines a wait is checked when the instruction reaches the head of its \
               queue and the engine is free; it starts when its wait holds. `_READ` updates \
               apply READ_DRAIN cycles before the end (inputs read), `_COMPLETE` updates at \
               the end; updates due at the same time apply in start order. Ties between \
               engines go PE, ACT, POOL, DVE, SP.",
    },
    Assumption {
        id: "engine-placement",
        source: "isa-facts §1.2 (opcode table engine column)",
        text: "An instruction runs on the engine the opcode table names; `.engine NAME` may \
               only repeat it. EventSemaphore (any engine in the table) and unmodelled bundles \
               go to `.engine`'s queue, else SP. An EventSemaphore takes SYNC_CYCLES; its two \
               waits must both hold, then its update applies like any other.",
    },    // Issue 18a: PE and ACT.
    Assumption {
        id: "pe-summation-order",
        source: "isa-facts-pe-act-dma §1.9, §8 item 7; decisions §6.2",
        text: "Matmul products are exact (never rounded on their own) and are added in fp32 sequentially over the contraction index k = 0..K-1 with one round-to-nearest-even per step: the sum starts from the k = 0 product rounded once to fp32, then each step is acc = fp32(acc + w[k]*x[k]), a fused multiply-add; accumulating onto PSUM is one more fp32 addition. The hardware order is not public: every Matmul result is exact per this order only and its report says so.",
    },
    Assumption {
        id: "pe-fp32-modes",
        source: "isa-facts-pe-act-dma §8 item 7",
        text: "fp32_mode none/high/low_high multiply full fp32 values; low (tf32) rounds both inputs to a 10-bit significand (nearest even) first.",
    },
    Assumption {
        id: "pe-array-mapping",
        source: "isa-facts-pe-act-dma §8 item 6",
        text: "LoadWeights reads num_active_rows source partitions of num_active_cols elements: W[k][m] = element m of partition k. Matmul's moving partition k is contraction row k; output column m goes to destination partition start + m. The weights stay until the next LoadWeights; a Matmul needs weights of its rows × columns.",
    },
    Assumption {
        id: "pe-lw-offsets",
        source: "isa-facts-pe-act-dma §1.4, §8 item 1",
        text: "S3_LW on sunda/cayman/mariana uses the S3D3_MM offsets: in_dtype @32, fp32_mode @33, perf_opt @35, quant_offset @36-37, num_active_rows @38, num_active_cols @39, row_grp @44, col_grp @45, xbus_sel @46 (sunda/cayman); every other byte is reserved.",
    },
    Assumption {
        id: "pe-psum-flags",
        source: "isa-facts-pe-act-dma §1.5.2, §1.5.5, §8 item 29",
        text: "psum_accumulate_flags bit 0 overwrites, any value without bit 0 accumulates (fp32 read-add-write); the END bit only closes the group. A group-begin matmul overwrites only the elements it writes (not the whole psum_zero_region). Cayman accepts the mariana set {0,1,2,3,4,6}.",
    },
    Assumption {
        id: "pe-transpose",
        source: "isa-facts-pe-act-dma §1.8, §8 item 3",
        text: "transpose_mode 1 is NKI's bit-accurate transpose: the Matmul writes W[j][m] unchanged to PSUM element (m, j); tpb runs it for 4-byte data whose moving tile is K × K and refuses the 16/8-bit forms (their PSUM layout is not given).",
    },
    Assumption {
        id: "act-rounding",
        source: "isa-facts-pe-act-dma §8 item 11",
        text: "Activate computes t = fma(in, scale, bias) in fp32 (one rounding), y = func(t) in fp32, then converts y to out_dtype (RNE). The accumulator adds the fp32 y of each element in walk order.",
    },
    Assumption {
        id: "act-table-functions",
        source: "isa-facts-pe-act-dma §2.11, §8 item 12; decisions §6.2",
        text: "Functions the hardware evaluates from unpublished piecewise-polynomial tables are computed from their mathematical definition in f64 with the libm crate and rounded once to fp32; each instruction that ran one carries an `approximate` label. Inputs outside a function's documented valid range (sine [-pi, pi], ln, sqrt, rsqrt, reciprocal, arctan) are computed the same way (no range reduction is modelled) and the report says the hardware output there is invalid.",
    },
    Assumption {
        id: "act-lrelu-slope",
        source: "isa-facts-pe-act-dma §2.2",
        text: "leaky relu (id 3) and parametric relu (id 4) take their negative slope from the imm operand (@44).",
    },
    Assumption {
        id: "act-accumulator",
        source: "isa-facts-pe-act-dma §2.3, §8 items 15-16",
        text: "The ACT accumulator is one fp32 per lane. zero sets it to 0; accumulate adds; zero_accumulate zeroes then adds; load_accumulate loads the imm operand (per lane through a pointer) then adds. ActivationReadAccumulator (0x24) does not clear it.",
    },
    Assumption {
        id: "act-quantize",
        source: "isa-facts-pe-act-dma §2.4, §8 item 18",
        text: "ActivateQuantize: t = fma(in, dequant_scale, bias), y = func(t), q = quant_scale * y + quant_zero in fp32, then rounded to nearest even and clamped to 0..=255 (NaN gives 0).",
    },
    Assumption {
        id: "exp-operands",
        source: "isa-facts-pe-act-dma §2.12",
        text: "Exponential 0x30 computes exp(in - imm0) with imm0 the max value (instruction fp32 or per-lane pointer), approximate as the ACT table functions; its running sum is the DVE lane accumulator (drained by 0x9b): zero_accumulate starts at 0, accumulate continues, load_accumulate starts at imm1 (the NKI reduce_init), and the fp32 outputs are added in order before the output conversion.",
    },
    Assumption {
        id: "dma-address-map",
        source: "isa-facts-pe-act-dma §3.2, §8 Q20",
        text: "Where SBUF and PSUM sit in the 64-bit DMA address space is not public. tpb's \
               map: an immediate ADDR8 below bit 55 is an HBM byte address; with bit 55 set, \
               its low 29 bits are the on-chip ADDR4 address (partition × stride + offset) of \
               the generation. HBM is one flat byte space per core (Config::hbm_bytes, \
               default 1 GiB, at most 64 GiB, pages allocated when written).",
    },
    Assumption {
        id: "dma-byte-steps",
        source: "isa-facts-pe-act-dma §0.2 #13, §3.4, §8 Q19",
        text: "DMA step_elem values are byte offsets between consecutive elements' starts, \
               slot 0 innermost; an element is elem_size contiguous bytes (0 = 64 KiB) and must \
               stay inside HBM or inside one partition's active bytes, and every element in the \
               space the pattern starts in (no fact says a walk past SBUF's last partition \
               reaches PSUM, so it is a fault). The source's bytes form one stream that the \
               destination pattern consumes in order.",
    },
    Assumption {
        id: "dma-cce",
        source: "isa-facts-pe-act-dma §3.4, §3.5",
        text: "A DMA with a cast or a compute_op converts each value in → fp32 → out with \
               round-to-nearest-even (no stochastic rounding), combining with the \
               destination's value in fp32 (add, multiply, maxNum, minNum); dtypes wider than \
               4 bytes are refused on this path. Without it, bytes are copied as they are.",
    },
    Assumption {
        id: "dma-register-address",
        source: "isa-facts-pe-act-dma §3.2",
        text: "An ADDR8 in register form addresses reg_hi << 32 | reg_lo in tpb's DMA map. \
               Shape-register and address-table forms are refused (not public).",
    },
    Assumption {
        id: "mem2d-registers",
        source: "isa-facts-pe-act-dma §3.14",
        text: "TensorLoad fills (and a register TensorStore reads) the sequencer registers \
               from data[0] on, one per element and two (low, high) for uint64; the sheet does \
               not say which bytes name them.",
    },
    Assumption {
        id: "dma-timing",
        source: "nki-dma-bandwidth-guide.rst L39-63, nki-dma-overview.rst L26-46, trainium2_arch.rst L289, L364, nki-dge.rst L124, L238 (aws-neuron-sdk@81ce03ae)",
        text: "Issuing a DMA request keeps the issuing engine busy DMA_ISSUE_NS (from ACT it runs \
               beside ACT's compute: it may start when the previous ACT instruction starts); \
               its data then moves on that engine's DMA queue (DMA.SP, DMA.ACT, DMA.POOL), in \
               issue order, on the core's DMA_ENGINES engines that every queue shares: it \
               starts DMA_LATENCY_NS after its issue ends and once the engines of its \
               partitions (one per DMA_PARTITIONS_PER_ENGINE partitions, all for HBM to HBM) \
               are free, each moving an equal share at DMA_ENGINE_MB_PER_S of the generation; \
               its HBM bytes (once per side in HBM) also occupy the core's HBM_MB_PER_S share.",
    },
    Assumption {
        id: "dma-completion",
        source: "isa-facts-pe-act-dma §4.1, §8 Q23–Q25",
        text: "A DMA request's EVENTS update fires when the issuing engine retires it; its \
               data moves on the issuing engine's DMA queue (in issue order); when the data has \
               landed, `semaphore` += `sem_increment` (0: none). A step-mode run \
               (Machine::step, one in-order stream) moves the data at once and adds the \
               increment right after it.",
    },
    Assumption {
        id: "multi-signal-wait",
        source: "decisions §3.8a, isa-facts §1.3",
        text: "A semaphore wait acquires, from the signals of other engines, only what it cannot \
               have passed without whatever order the timing lands them in: when every other \
               engine updating the semaphore in the program only increments it (or only \
               decrements it), a wait needing that movement acquires, from each such engine, its \
               first m signals, m the fewest that reach the threshold given the waiter's own \
               updates and every update of every other engine in the whole program. Two engines \
               incrementing once and a wait for 1 order nothing (a race in every timing); a wait \
               for 2 orders both. Writes, register amounts or both directions keep the \
               earliest-unbroken-entry rule for one other signaller and order nothing for \
               several.",
    },
    // Issue 17a: the DVE/POOL compute slice (isa-facts-dve-pool §18 questions).
    Assumption {
        id: "dve-or-pool-placement",
        source: "isa-facts-dve-pool §0.1, §1.4; decisions §6.3",
        text: "An opcode the sources place on DVE or POOL (TensorTensor, Copy/Cast, Memset, \
               TensorReduce) runs on whichever of the two queues `.engine` names, DVE by \
               default; the per-engine legality predicates (§1.4, §7.1) are not enforced.",
    },
    Assumption {
        id: "tt-int-operands",
        source: "isa-facts-dve-pool §1.5, decisions §4.12",
        text: "A TensorTensor int-aluop sign-extends (signed source dtype) or zero-extends \
               8/16-bit operands to 32 bits, computes in wrapping 32-bit integers and stores \
               the low bits of the result in out_dtype.",
    },
    Assumption {
        id: "int64-divide",
        source: "isa-facts-dve-pool §1.5 (64-bit DIVIDE/MOD algorithm not recovered)",
        text: "On the 64-bit path (three INT64 or three UINT64 operands) DIVIDE/MOD truncate \
               like the 32-bit ops (remainder with the dividend's sign; divide by zero \
               faults); other dtype mixes with 64-bit operands are refused.",
    },
    Assumption {
        id: "copy-when-same-dtype",
        source: "isa-facts-dve-pool §2.4, §4.4",
        text: "Copy, CopyPredicated, and a Cast or CastPredicated whose in and out dtypes are \
               equal move raw bits; a Cast with different dtypes converts through FP32 \
               (decisions §4.4 for floats, §4.6 RNE + saturate for integers, Q17).",
    },
    Assumption {
        id: "predicate-merge",
        source: "isa-facts-dve-pool §2.4, §3.4",
        text: "A predicate element is true when its raw bits are nonzero; an element the \
               predicate does not select keeps the destination's previous contents (merge).",
    },
    Assumption {
        id: "cp-pred-scalar-bytes",
        source: "isa-facts-dve-pool Q7",
        text: "CopyPredicatedScalar's inline scalar is the low in_dtype bytes of src0_imm \
               (little-endian); the pointer forms read one in_dtype element at the same \
               offset of each channel's partition.",
    },
    Assumption {
        id: "reciprocal-ieee",
        source: "isa-facts-dve-pool §5, Q5; decisions §6.2",
        text: "Reciprocal converts to FP32, computes IEEE 1.0f/x (RNE; ±0 → ±inf, ±inf → ±0, \
               NaN → NaN) and converts to out_dtype; an approximation of the hardware's \
               seed-and-refine datapath.",
    },
    Assumption {
        id: "memset-raw-fill",
        source: "isa-facts-dve-pool §6.3, §6.4, Q6",
        text: "Memset writes the low dtype-size bytes of set_value to every dst element; \
               REG_SERIAL_MODE Serial is 0, and dst_element_count must equal the dst \
               pattern's element count (validator).",
    },
    Assumption {
        id: "reduce-geometry",
        source: "isa-facts-dve-pool §7.4, Q8, Q9",
        text: "TensorReduce: op_dim X/XY/XYZ/XYZW reduces descriptor slots 0, 0–1, 0–2, 0–3; \
               dst element j is the j-th kept index (slot 0 fastest). Float ops fold in FP32 \
               from the first element in element order, negate, then convert once; \
               int-aluops fold in wrapping 32-bit integers; AMAX/AMIN write the u32 position \
               of the first extreme within the reduced group; bitvec ops fold raw bits.",
    },
    Assumption {
        id: "transpose-reduce-order",
        source: "isa-facts-dve-pool §7.1, Q10",
        text: "TransposeTensorReduce (0x83/0x84) first moves the source as StreamTranspose \
               does (`stream-transpose-map`, channels and element count in whole 32s, else a \
               fault), then reduces the moved elements exactly as TensorReduce, with the \
               groups the src descriptor's counts give.",
    },
    Assumption {
        id: "stream-transpose-map",
        source: "isa-facts-dve-pool §15, Q21",
        text: "StreamTranspose: per 32-channel group g and 32-element block b, \
               dst[32g+e][32b+c] = src[32g+c][32b+e] (elements in each pattern's order); \
               a shorter dst drops the elements past its count; mask_enable = 1 changes \
               nothing else.",
    },
    Assumption {
        id: "bf16-pair-units",
        source: "isa-facts-dve-pool Q2",
        text: "Sunda's bf16 TensorTensor trio and reduce pair count num_elem/step_elem in \
               bf16 elements; the UINT32 in their pattern check only asks 4-byte alignment.",
    },
    // Issue 17b: the hidden DVE per-lane state and the instructions around it.
    Assumption {
        id: "dve-lane-state",
        source: "isa-facts-dve-pool §0.3.3, Q19, Q24",
        text: "The hidden DVE state is per relative lane (channel c of an instruction is lane \
               c, as for the scalar flops): an fp32 reduce accumulator, 8 fp32 match keys with \
               a matched flag each, 8 index flops, and one 32-byte mask-select table per core. \
               A new machine has accumulators 0.0, keys 0.0 (none loaded), flags clear, index \
               flops all ones (the no-match sentinel) and no mask table. A consumer reading a \
               lane no instruction has written warns (`dve-state-unset`).",
    },
    Assumption {
        id: "accumulator-lifetime",
        source: "isa-facts-dve-pool Q19",
        text: "One fp32 accumulator per DVE lane, shared by TensorScalarCacheReduce (0x9a), \
               TensorScalarCacheCumulative (0xe6), SelectReduce (0xea) and ScalarTensorTensor \
               (0x9d); Idle leaves it unchanged; DveReadAccumulator (0x9b) reads it without \
               clearing it.",
    },
    Assumption {
        id: "stt-accumulate",
        source: "isa-facts-dve-pool Q15",
        text: "ScalarTensorTensorArith (0x9d) with Accumulate or ZeroAccumulate writes dst as \
               usual and adds each fp32 result, in walk order, to the lane accumulator; \
               ZeroAccumulate starts from 0.0. (G's reconstructed pseudo-code skips the dst \
               store on this path; low confidence either way.)",
    },
    Assumption {
        id: "scan-recurrence",
        source: "isa-facts-dve-pool Q16, §0.2 decision 12",
        text: "TensorTensorScan (0xe5) computes NKI's recurrence r[i] = op1(op0(src0[i], \
               r[i-1]), src1[i]) in fp32 with r[-1] = imm0 (per imm0_src), one output per \
               input in walk order; reverse_operands bit 0 swaps op0's operands, bit 1 op1's. \
               G's reading (combine, then scan with an unidentified operator) is the recorded \
               alternative.",
    },
    Assumption {
        id: "select-reduce-model",
        source: "isa-facts-dve-pool Q18, §11.4",
        text: "SelectReduce (0xea): src0 is the predicate (true when its raw bits are \
               nonzero); where true dst = src1 converted through fp32 to out_dtype and the \
               value enters the running max (maxNum); where false, reverse_operands = First \
               writes imm0 (fp32, per imm0_src) converted to out_dtype, None leaves dst \
               unchanged, and the max is not updated. ZeroAccumulate starts the max at -inf, \
               Accumulate continues it, Idle leaves the accumulator alone. NKI's reverse_pred \
               has no known encoding and is refused by tpb.nki.isa.select_reduce.",
    },
    Assumption {
        id: "stt-scalar",
        source: "isa-facts-dve-pool §9.4",
        text: "The STT-family scalar imm0 is, per imm0_src, the instruction word (fp32 bits on \
               the arith path, the low imm0_dtype bits on the bitvec path) or one imm0_dtype \
               element per channel read through the pointer (converted to fp32 on the arith \
               path). STT computes (src0 op0 s) op1 src1 with reverse bit 0 swapping op0's \
               operands and bit 1 op1's (the TensorScalar formula with scalar1 = src1).",
    },
    Assumption {
        id: "cache-reduce-model",
        source: "isa-facts-dve-pool §12.5, §0.2 decisions 9 and 10, Q25, Q26",
        text: "TensorScalarCacheReduce (0x9a) and TensorScalarCacheCumulative (0xe6) walk src \
               per lane in walk order in fp32: tmp = src op0 imm0 (scalar on the right), then \
               acc = op1(tmp, acc) (NKI's order; G's acc op1 tmp differs only for subtract). \
               ZeroAccumulate seeds op1's identity (0, 0, 1, -inf, +inf for add, subtract, \
               mult, max, min), LoadAccumulate seeds imm1 (fp32, per imm1_src), Accumulate \
               continues the lane accumulator. 0xe6 writes acc after each element; 0x9a \
               writes tmp to dst and leaves the reduction in the accumulator for 0x9b (G's \
               'final acc only' reading is the recorded alternative). A pointer imm0/imm1 \
               reads 4 bytes as fp32 per lane.",
    },
    Assumption {
        id: "read-accumulator",
        source: "isa-facts-dve-pool §13.1, Q19",
        text: "DveReadAccumulator (0x9b) writes each active lane's accumulator, negated when \
               negated = 1, converted to dtype (RNE as every fp32 narrowing), into element 0 \
               of that lane's dst, and keeps the accumulator.",
    },
    Assumption {
        id: "search-cluster",
        source: "isa-facts-dve-pool §16.4, Q22, Q23, Q24",
        text: "MatchValueLoad (0x6d) loads 8 keys per lane converted to fp32, reversed (src[k] \
               -> mv[7-k]), and clears the matched flags. FindIndex8 (0x6e) and MatchReplace8 \
               (0x6f) clear the flags first, then try each element in flat order against the \
               unmatched keys in ascending slot order; exact ordered fp32 equality (NaN never \
               matches) records the element for that key. FindIndex8 writes slot n = the flat \
               index matched by mv[n], all ones (0xFFFF / 0xFFFFFFFF) when none. MatchReplace8 \
               writes each matched element as the fp32 immediate and every other element \
               through fp32, and leaves slot n's match index (all ones when none) in the index \
               flops, which DveReadIndices (0xe9) writes as u16 (low bits) or u32. Max8 writes \
               the 8 largest values as a multiset, ascending, NaN below every number.",
    },
    Assumption {
        id: "search-nki-order",
        source: "nki-api §3.4 (max8, nc_find_index8, nc_match_replace8), isa-facts-dve-pool §16.4",
        text: "max8 reverses its 8-slot destination with a step -1 descriptor (NKI's \
               descending order from the ascending ISA result). nc_find_index8 and \
               nc_match_replace8 read vals backwards into MatchValueLoad (which stores src[k] \
               in slot 7-k), so key n is vals[n], keys are tried in vals' order and the index \
               for vals[i] lands at i: with repeated vals the first occurrence goes to the \
               first slot, as nki-library's cascaded_max reads it (dst[:, 0]).",
    },
    Assumption {
        id: "cross-lane-reduce",
        source: "isa-facts-dve-pool §8.3, §8.4, Q12, Q13",
        text: "CrossLaneReduce: 0x7c takes reduce_op add, average or max and 0x7d bitwise \
               or/and/xor with integer in == out dtypes (validator clause \
               valid_reduce_op_for_opcode, body not public). ADD, AVERAGE and MAX convert to \
               fp32 and fold left to right from the first element (AVERAGE multiplies each \
               element by scale first, MAX is maxNum); bitwise ops fold raw bits. ALL folds \
               channels ascending, elements slot-0-fastest, into dst's one element; PARTITIONS \
               folds element k over channels ascending into dst element k (one partition). \
               The result converts to out_dtype (RNE; integers saturate).",
    },
    Assumption {
        id: "stream-shuffle-mask",
        source: "isa-facts-dve-pool §14, Q20",
        text: "StreamShuffle (0x6a) permutes by the most recent LoadMaskSelect (0x69) table of \
               the core: per 32-channel group g and lane j, mask[j] < 32 copies src channel \
               32g+mask[j] into dst channel 32g+j (raw bits, elements in each pattern's \
               order); mask[j] >= 32 (the compiler's count|0x20 sentinel, and 255) leaves dst \
               channel 32g+j unwritten (NKI's 255 = keep). Every source is read before the \
               first write (in place allowed). With no table loaded 0x6a is refused at run \
               time (the compiler emits its 0x69 after the 0x6a, so which table it reads is \
               open).",
    },
    // NKI calls tpb composes where the compiler's lowering is not public (tpb-nki, python/tpb/nki).
    Assumption {
        id: "bn-stats-lowering",
        source: "nki-api §3 (bn_stats, bn_aggr); no BatchNormStats facts in the ISA fact sheets",
        text: "nki.isa.bn_stats computes, per partition in fp32, (count, mean, sum of squared \
               deviations from that mean) of the even-indexed elements, then of the odd-indexed \
               ones (mean = sum × fp32(1/count), two passes; a half with no element gives 0, 0, \
               0); bn_aggr computes N = Σ count, mean = Σ count·mean × (1/N), variance = \
               (Σ var·count + Σ count·(mean_i − mean)²) × (1/N), each a sequence of modelled \
               Vector instructions (TensorReduce, TensorScalar, TensorTensor, Reciprocal, \
               Memset). The hardware's BatchNormStats order is not public, so these \
               instructions are labelled approximate.",
    },
    Assumption {
        id: "mod-alloc-block-groups",
        source: "nki-api §3.2 (nc_matmul accumulation groups), docs/public-kernels.md (attention_fwd v9/v10)",
        text: "A legacy `t[i] += nisa.nc_matmul(...)` (or nl.matmul) into block i of a mod_alloc \
               tensor overwrites (starts a new accumulation group) when block i's storage was \
               last used by another block index, or not yet by any, and accumulates otherwise: \
               the group is kept per logical block, not per byte. A kernel that writes block i \
               first (a memset, an assignment) and then adds accumulates onto what it wrote. \
               Using the storage through a new block index also ends the groups \
               nc_matmul(accumulate=None) continues, so its first matmul through t[i] \
               overwrites.",
    },
];

/// One constant of the multi-engine timing model (`engine-timing`, `engine-sync-timing`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimingConstant {
    /// The name `--timing NAME=VALUE` and timing files use.
    pub name: &'static str,
    /// The default value.
    pub default: u64,
    /// The unit.
    pub unit: &'static str,
    /// Where the value comes from; ASSUMED where no source gives it.
    pub source: &'static str,
}

/// The multi-engine timing model: one table of named constants, every one overridable
/// (`tpb run --timing NAME=VALUE`, `--timing-file`). Clocks are per engine and generation
/// (NC-v2 = sunda, NC-v3 = cayman, NC-v4 = mariana; maverick has no public figure and
/// repeats mariana); SP's clock is not published and repeats ACT's.
#[rustfmt::skip]
pub const TIMING_CONSTANTS: &[TimingConstant] = &[
    TimingConstant { name: "DVE_MIN_II", default: 64, unit: "DVE cycles", source: "aws-neuron-sdk v2.26.0 general/nki/api/nki/isa/__init__.py L171-172 and every DVE 'Estimated instruction cost' (MIN_II roughly 64 engine cycles)" },
    TimingConstant { name: "ACT_MIN_II", default: 64, unit: "ACT cycles", source: "aws-neuron-sdk v2.26.0 general/nki/api/nki/isa/__init__.py L168-172 (activation: max(MIN_II, N), MIN_II roughly 64)" },
    TimingConstant { name: "POOL_MIN_II", default: 64, unit: "POOL cycles", source: "aws-neuron-sdk v2.26.0 general/nki/api/nki/isa/__init__.py L1396-1400 (tensor_copy on any engine: max(MIN_II, N), MIN_II roughly 64)" },
    TimingConstant { name: "PE_MIN_II", default: 64, unit: "PE cycles", source: "aws-neuron-sdk v2.26.0 general/nki/api/nki/isa/__init__.py L906-911 (nc_matmul max(min(64, N_stationary), N_moving)); trainium_inferentia2_arch.rst@81ce03ae L267 (MM_INIT_LATENCY 64 on NeuronCore-v2; the ISA reference gives it for every generation)" },
    TimingConstant { name: "PE_FP32_FACTOR", default: 4, unit: "×", source: "aws-neuron-sdk v2.26.0 general/nki/api/nki/isa/__init__.py L910-911 (4 * max(...) for float32 inputs); trainium_inferentia2_arch.rst@81ce03ae L268-269" },
    TimingConstant { name: "PE_FAST_LOAD_SPEEDUP", default: 4, unit: "×", source: "trainium_inferentia2_arch.rst@81ce03ae L297-299 (fast LoadStationary up to 4x faster than a MultiplyMoving of the same free size); nki_perf_guide.rst@81ce03ae L677-680 (LS_II ~= 128/4)" },
    TimingConstant { name: "EXP_DVE_SPEEDUP", default: 4, unit: "×", source: "trainium3_arch.rst@81ce03ae L179 (nisa.exponential on VectorE at 4x the throughput of the ScalarE exp)" },
    TimingConstant { name: "TENSOR_ACCESS_OVERHEAD", default: 60, unit: "PE/ACT cycles", source: "trainium_inferentia2_arch.rst@81ce03ae L772-775 (tensor access static overhead approximately 60 cycles on NeuronCore-v2); ASSUMED on later generations, and paid only by a PE/ACT instruction that starts with its engine's pipeline empty" },
    TimingConstant { name: "DEPENDENT_OVERHEAD", default: 100, unit: "engine cycles", source: "trainium_inferentia2_arch.rst@81ce03ae L401-404 (static instruction overhead of 100 engine cycles for instructions depending on the previous one's output)" },
    TimingConstant { name: "SMALL_TILE_OVERHEAD", default: 100, unit: "engine cycles", source: "nki_perf_guide.rst@81ce03ae L414-417 (one element per partition: static instruction overhead in the order of ~100 cycles) and L426-428 (dependent 1-element ScalarE chain: 264 cycles); ASSUMED to apply to a dependent DVE/ACT/POOL instruction with N below its MIN_II" },
    TimingConstant { name: "ACCESS_STRIDE_LIMIT_BYTES", default: 16, unit: "bytes", source: "trainium_inferentia2_arch.rst@81ce03ae L756-763 (a most-minor stride over 16 bytes halves the read/write interface bandwidth)" },
    TimingConstant { name: "POOL_START", default: 150, unit: "POOL cycles", source: "aws-neuron-sdk v2.26.0 general/nki/api/nki/isa/__init__.py L289-292, L565-567 (GPSIMD_START roughly 150 engine cycles: iota, affine_select)" },
    TimingConstant { name: "SYNC_CYCLES", default: 64, unit: "engine cycles", source: "ASSUMED (an instruction without memory operands)" },
    TimingConstant { name: "READ_DRAIN", default: 16, unit: "engine cycles", source: "ASSUMED (`_READ` fires this long before the end)" },
    TimingConstant { name: "DMA_ISSUE_NS", default: 600, unit: "ns", source: "trainium2_arch.rst@81ce03ae L364 and nki-dge.rst@81ce03ae L124, L238 (a hardware-DGE DMA instruction takes about 600 ns; from ScalarE it hides behind earlier compute); ASSUMED for POOL's software DGE" },
    TimingConstant { name: "DMA_LATENCY_NS", default: 1300, unit: "ns", source: "nki-dma-bandwidth-guide.rst@81ce03ae L39-41 (semaphore-to-start latency ~1300 ns cross-engine)" },
    TimingConstant { name: "DMA_ENGINES", default: 16, unit: "DMA engines", source: "nki-dma-bandwidth-guide.rst@81ce03ae L59-63 (16 engines per NeuronCore, shared by its DMA queues); nki-dma-overview.rst@81ce03ae L26-29 (queues scheduled round robin onto the engines)" },
    TimingConstant { name: "DMA_PARTITIONS_PER_ENGINE", default: 8, unit: "partitions", source: "nki-dma-overview.rst@81ce03ae L46 and trainium2_arch.rst@81ce03ae L289 (each of the 16 engines moves 128/16 = 8 partitions of a transfer; fewer partitions use fewer engines, nki-dma-bandwidth-guide.rst@81ce03ae L118)" },
    TimingConstant { name: "DMA_ENGINE_MB_PER_S_SUNDA", default: 17000, unit: "MB/s", source: "nki-dma-bandwidth-guide.rst@81ce03ae L61 (TRN1 17 B/ns per engine)" },
    TimingConstant { name: "DMA_ENGINE_MB_PER_S_CAYMAN", default: 23000, unit: "MB/s", source: "nki-dma-bandwidth-guide.rst@81ce03ae L62 (TRN2 23 B/ns per engine)" },
    TimingConstant { name: "DMA_ENGINE_MB_PER_S_MARIANA", default: 33000, unit: "MB/s", source: "nki-dma-bandwidth-guide.rst@81ce03ae L63 (TRN3 33 B/ns per engine)" },
    TimingConstant { name: "DMA_ENGINE_MB_PER_S_MAVERICK", default: 33000, unit: "MB/s", source: "ASSUMED (= mariana)" },
    TimingConstant { name: "HBM_MB_PER_S_SUNDA", default: 410000, unit: "MB/s", source: "trainium_inferentia2_arch.rst@81ce03ae L19-21 (820 GB/s per device of 2 NeuronCores)" },
    TimingConstant { name: "HBM_MB_PER_S_CAYMAN", default: 375000, unit: "MB/s", source: "trainium2_arch.rst@81ce03ae L15-16 (3 TB/s per device of 8 NeuronCores)" },
    TimingConstant { name: "HBM_MB_PER_S_MARIANA", default: 587500, unit: "MB/s", source: "trainium3_arch.rst@81ce03ae L15-16 (4.7 TB/s per device of 8 NeuronCores)" },
    TimingConstant { name: "HBM_MB_PER_S_MAVERICK", default: 587500, unit: "MB/s", source: "ASSUMED (= mariana)" },
    TimingConstant { name: "PE_PEAK_GFLOPS_SUNDA", default: 92000, unit: "GFLOP/s", source: "trainium_inferentia2_arch.rst@81ce03ae L103 (92 bf16/fp16/tf32/cfp8 and 23 fp32 TFLOPS)" },
    TimingConstant { name: "PE_PEAK_FP32_GFLOPS_SUNDA", default: 23000, unit: "GFLOP/s", source: "trainium_inferentia2_arch.rst@81ce03ae L103 (92 bf16/fp16/tf32/cfp8 and 23 fp32 TFLOPS)" },
    TimingConstant { name: "PE_PEAK_GFLOPS_CAYMAN", default: 79000, unit: "GFLOP/s", source: "trainium2_arch.rst@81ce03ae L71 (79 bf16/fp16/tf32 and 20 fp32 dense TFLOPS; fp8's 158 is not used: tpb prices fp8 as bf16, as ISA-2.26 does)" },
    TimingConstant { name: "PE_PEAK_FP32_GFLOPS_CAYMAN", default: 20000, unit: "GFLOP/s", source: "trainium2_arch.rst@81ce03ae L71 (79 bf16/fp16/tf32 and 20 fp32 dense TFLOPS; fp8's 158 is not used: tpb prices fp8 as bf16, as ISA-2.26 does)" },
    TimingConstant { name: "PE_PEAK_GFLOPS_MARIANA", default: 79000, unit: "GFLOP/s", source: "trainium3_arch.rst@81ce03ae L68 (79 bf16/fp16/tf32 and 20 fp32 TFLOPS)" },
    TimingConstant { name: "PE_PEAK_FP32_GFLOPS_MARIANA", default: 20000, unit: "GFLOP/s", source: "trainium3_arch.rst@81ce03ae L68 (79 bf16/fp16/tf32 and 20 fp32 TFLOPS)" },
    TimingConstant { name: "PE_PEAK_GFLOPS_MAVERICK", default: 158000, unit: "GFLOP/s", source: "ASSUMED (mariana per array column, 256 columns)" },
    TimingConstant { name: "PE_PEAK_FP32_GFLOPS_MAVERICK", default: 40000, unit: "GFLOP/s", source: "ASSUMED (mariana per array column, 256 columns)" },
    TimingConstant { name: "CLOCK_MHZ_PE_SUNDA", default: 2800, unit: "MHz", source: "trainium_inferentia2_arch.rst@81ce03ae L65-75 (engine frequency table)" },
    TimingConstant { name: "CLOCK_MHZ_ACT_SUNDA", default: 1400, unit: "MHz", source: "trainium_inferentia2_arch.rst@81ce03ae L65-75 (engine frequency table)" },
    TimingConstant { name: "CLOCK_MHZ_POOL_SUNDA", default: 1400, unit: "MHz", source: "trainium_inferentia2_arch.rst@81ce03ae L65-75 (engine frequency table)" },
    TimingConstant { name: "CLOCK_MHZ_DVE_SUNDA", default: 1120, unit: "MHz", source: "trainium_inferentia2_arch.rst@81ce03ae L65-75 (engine frequency table)" },
    TimingConstant { name: "CLOCK_MHZ_SP_SUNDA", default: 1400, unit: "MHz", source: "ASSUMED (= ACT)" },
    TimingConstant { name: "CLOCK_MHZ_PE_CAYMAN", default: 2400, unit: "MHz", source: "trainium2_arch.rst@81ce03ae L48-60 (engine frequency table)" },
    TimingConstant { name: "CLOCK_MHZ_ACT_CAYMAN", default: 1200, unit: "MHz", source: "trainium2_arch.rst@81ce03ae L48-60 (engine frequency table)" },
    TimingConstant { name: "CLOCK_MHZ_POOL_CAYMAN", default: 1200, unit: "MHz", source: "trainium2_arch.rst@81ce03ae L48-60 (engine frequency table)" },
    TimingConstant { name: "CLOCK_MHZ_DVE_CAYMAN", default: 960, unit: "MHz", source: "trainium2_arch.rst@81ce03ae L48-60 (engine frequency table)" },
    TimingConstant { name: "CLOCK_MHZ_SP_CAYMAN", default: 1200, unit: "MHz", source: "ASSUMED (= ACT)" },
    TimingConstant { name: "CLOCK_MHZ_PE_MARIANA", default: 2400, unit: "MHz", source: "trainium3_arch.rst@81ce03ae L45-57 (engine frequency table)" },
    TimingConstant { name: "CLOCK_MHZ_ACT_MARIANA", default: 1200, unit: "MHz", source: "trainium3_arch.rst@81ce03ae L45-57 (engine frequency table)" },
    TimingConstant { name: "CLOCK_MHZ_POOL_MARIANA", default: 1200, unit: "MHz", source: "trainium3_arch.rst@81ce03ae L45-57 (engine frequency table)" },
    TimingConstant { name: "CLOCK_MHZ_DVE_MARIANA", default: 1200, unit: "MHz", source: "trainium3_arch.rst@81ce03ae L45-57 (engine frequency table)" },
    TimingConstant { name: "CLOCK_MHZ_SP_MARIANA", default: 1200, unit: "MHz", source: "ASSUMED (= ACT)" },
    TimingConstant { name: "CLOCK_MHZ_PE_MAVERICK", default: 2400, unit: "MHz", source: "ASSUMED (= mariana)" },
    TimingConstant { name: "CLOCK_MHZ_ACT_MAVERICK", default: 1200, unit: "MHz", source: "ASSUMED (= mariana)" },
    TimingConstant { name: "CLOCK_MHZ_POOL_MAVERICK", default: 1200, unit: "MHz", source: "ASSUMED (= mariana)" },
    TimingConstant { name: "CLOCK_MHZ_DVE_MAVERICK", default: 1200, unit: "MHz", source: "ASSUMED (= mariana)" },
    TimingConstant { name: "CLOCK_MHZ_SP_MAVERICK", default: 1200, unit: "MHz", source: "ASSUMED (= mariana)" },
];

/// The text each Matmul's report carries (assumption `pe-summation-order`).
pub const PE_SUMMATION_ORDER: &str = "exact per our order, not the hardware's bits: exact \
     products summed in fp32 sequentially over the contraction index, one rounding per step \
     (assumption pe-summation-order)";
// ---- DMA, HBM and MEM_2D (isa-facts-pe-act-dma §3) ------------------------------------------

/// `dma-register-address`: an ADDR8 in register form (`reg_lo`, `reg_hi`) addresses the
/// 64-bit value `reg_hi << 32 | reg_lo` (§3.2 names the pair, not the combination), read in
/// tpb's DMA map like an immediate.
pub const fn dma_register_address(lo: u32, hi: u32) -> Addr8 {
    Addr8(((hi as u64) << 32) | lo as u64)
}

/// `mem2d-registers`: the first sequencer register a TensorLoad fills (or a register
/// TensorStore reads) is `data[0]`; the next elements use the following registers (§3.14
/// does not say which bytes name them).
pub fn mem2d_first_register(s: &Mem2d) -> usize {
    usize::from(s.data.0[0])
}

// ---- machine state ------------------------------------------------------------------------

/// Flop slots per channel (`initial-state`, `flop-layout`).
pub const FLOP_SLOTS: usize = 8;

/// The value every register, flop slot and semaphore starts with (`initial-state`).
pub const INITIAL_WORD: u32 = 0;

/// The flop slot ImmLd writes its `i`-th element (element order) to (`flop-layout`).
pub const fn imm_ld_slot(i: usize) -> usize {
    i
}

/// The flop slots of the sunda Dual's scalar pair `i`: `(op0 scalar, MULT scalar)`
/// (`flop-layout`).
pub const fn dual_pair_slots(i: usize) -> (usize, usize) {
    (2 * i, 2 * i + 1)
}

// ---- datapath stages ----------------------------------------------------------------------

/// One ALU stage on the FP32 arith path: `data op scalar`, or `scalar op data` when
/// `reversed`; BYPASS passes `data` (`bypass-passes-data`). The TensorScalar formula of
/// decisions §4.11 is two of these: `stage(op1, stage(op0, t, s0, rev & 1), s1, rev & 2)`.
#[inline(always)]
pub fn stage_arith(op: AluOp, data: f32, scalar: f32, reversed: bool) -> Result<f32, NumError> {
    if op == AluOp::BYPASS {
        Ok(data)
    } else if reversed {
        alu_arith(op, scalar, data)
    } else {
        alu_arith(op, data, scalar)
    }
}

/// One ALU stage on the bitvec path (`bits` wide); BYPASS passes `data`.
#[inline(always)]
pub fn stage_bitvec(
    op: AluOp,
    data: u32,
    scalar: u32,
    reversed: bool,
    bits: u32,
) -> Result<u32, NumError> {
    if op == AluOp::BYPASS {
        alu_bitvec(op, data, 0, bits)
    } else if reversed {
        alu_bitvec(op, scalar, data, bits)
    } else {
        alu_bitvec(op, data, scalar, bits)
    }
}

/// One ALU stage on maverick's integer arm (`integer-arm-dtypes`); BYPASS passes `data`.
#[inline(always)]
pub fn stage_int(
    op: AluOp,
    data: u32,
    scalar: u32,
    reversed: bool,
    signed: bool,
) -> Result<u32, NumError> {
    if op == AluOp::BYPASS {
        Ok(data)
    } else if reversed {
        alu_int_as(op, scalar, data, signed)
    } else {
        alu_int_as(op, data, scalar, signed)
    }
}

/// The 32-bit operand of the integer arm for an element of `dtype` (`raw` zero-extended
/// bits): sign-extended for signed types; `None` for a non-integer dtype (refused).
pub fn int_operand(dtype: Dtype, raw: u32) -> Option<u32> {
    Some(match dtype {
        Dtype::INT8 => raw as u8 as i8 as i32 as u32,
        Dtype::INT16 => raw as u16 as i16 as i32 as u32,
        Dtype::UINT8 => raw & 0xFF,
        Dtype::UINT16 => raw & 0xFFFF,
        Dtype::INT32 | Dtype::UINT32 => raw,
        _ => return None,
    })
}

/// Whether the integer arm treats `dtype` as signed (`integer-arm-dtypes`).
pub const fn int_signed(dtype: Dtype) -> bool {
    matches!(dtype, Dtype::INT8 | Dtype::INT16 | Dtype::INT32)
}

// ---- ramps (Iota, AffineSelect) -----------------------------------------------------------

/// The ramp value `base + offset + channel·channel_multiplier` in wrapping i32, where
/// `offset` is the exact `Σ index·step` (`ramp-wraps`). Truncating the exact sum to 32 bits
/// equals wrapping arithmetic at every step.
#[inline(always)]
pub fn ramp_value(base: i32, offset: i64, channel: u32, channel_multiplier: i32) -> i32 {
    (base as i64)
        .wrapping_add(offset)
        .wrapping_add((channel as i64).wrapping_mul(channel_multiplier as i64)) as i32
}

/// Iota's output bits for ramp value `v` (`iota-int-wraps`): integer dtypes keep the low
/// bits; float dtypes go through FP32 (RNE), then [`from_f32`].
#[inline(always)]
pub fn iota_output(dtype: Dtype, v: i32, cfg: &Fp8Config) -> u32 {
    match dtype {
        Dtype::INT8 | Dtype::UINT8 => v as u32 & 0xFF,
        Dtype::INT16 | Dtype::UINT16 => v as u32 & 0xFFFF,
        Dtype::INT32 | Dtype::UINT32 => v as u32,
        _ => from_f32(dtype, iota_fp32(v), cfg),
    }
}

/// The FP32 value a ramp value converts to before a float output (`iota-int-wraps`).
#[inline(always)]
pub fn iota_fp32(v: i32) -> f32 {
    v as f32
}

/// Whether Iota writes `dtype` by keeping ramp bits (integers) rather than through FP32.
pub const fn iota_keeps_bits(dtype: Dtype) -> bool {
    matches!(
        dtype,
        Dtype::INT8 | Dtype::UINT8 | Dtype::INT16 | Dtype::UINT16 | Dtype::INT32 | Dtype::UINT32
    )
}

// ---- scalar operands ----------------------------------------------------------------------

/// Which path reads a pointer-sourced scalar.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScalarPath {
    /// FP32 arithmetic.
    Arith,
    /// Raw bits of the tensor's dtype.
    Bitvec,
    /// Maverick's 32-bit integer arm.
    Int,
}

/// The memory dtype of a pointer-sourced TensorScalar scalar (`pointer-scalar-dtype`).
pub const fn pointer_scalar_dtype(path: ScalarPath, in_dtype: Dtype) -> Dtype {
    match path {
        ScalarPath::Arith => Dtype::FP32,
        ScalarPath::Bitvec => in_dtype,
        ScalarPath::Int => Dtype::UINT32,
    }
}

/// The memory dtype of a pointer-sourced RangeSelect bound (`pointer-scalar-dtype`).
pub const RANGE_SELECT_BOUND_DTYPE: Dtype = Dtype::FP32;

/// The address a register holds, for a RegPtr immediate or a register-form ADDR4
/// (`register-pointer`): the register's 32 bits read as an ADDR4 word, which the caller
/// accepts only in immediate form.
pub const fn register_address(register_value: u32) -> Addr4 {
    Addr4(register_value)
}

/// TensorScalarSelect's inline src1 element bits (`ts-select-operands`).
pub const fn ts_select_inline_src1(imm: u32, size: usize) -> u32 {
    match size {
        1 => imm & 0xFF,
        2 => imm & 0xFFFF,
        _ => imm,
    }
}

/// Whether a pointer-read predicate element selects (`ts-select-operands`).
pub const fn predicate_true(raw: u32) -> bool {
    raw != 0
}

/// RangeSelect's compared index for element `k` (`range-select-index`).
#[inline(always)]
pub fn range_select_index(base: f32, k: u64) -> f32 {
    base + k as f32
}

// ---- events and semaphores ----------------------------------------------------------------

/// Whether setting an already-set event (or clearing a clear one) faults (`event-conflicts`).
pub const EVENT_CONFLICT_FAULTS: bool = true;

/// The step of SEM_INC / SEM_DEC (`semaphore-arithmetic`).
pub const SEM_STEP: i32 = 1;

// ---- firmware stubs -----------------------------------------------------------------------

/// Whether `Config::firmware_stubs` affects `gen` (`firmware-stub-scope`).
pub const fn firmware_stubs_apply(gen: Gen) -> bool {
    tpb_isa::opcode::stub_firmware_known(gen)
}

/// The firmware's self-name log line for a stubbed opcode: the workers the header marks
/// "not maintained" are the log-only stubs (seed 000 §8).
pub fn firmware_stub_log(info: &OpcodeInfo) -> Option<&'static str> {
    (info.maintenance == Maintenance::NotMaintained).then_some(info.firmware_log)
}

// ---- DVE per-lane state and the instructions around it (issue 17b) -------------------------

/// Keys, matched flags and index flops per DVE lane (isa-facts-dve-pool §0.3.3, §16).
pub const SEARCH_SLOTS: usize = 8;

/// The index flops before any MatchReplace8: all ones, the no-match sentinel (assumption
/// `dve-lane-state`, isa-facts-dve-pool Q24).
pub const INDEX_FLOP_INITIAL: u32 = u32::MAX;

/// What an `accumulator_cmd` does to a lane's reduce accumulator before an instruction's
/// elements fold in (assumptions `accumulator-lifetime`, `stt-accumulate`,
/// `cache-reduce-seed`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AccumStart {
    /// Idle: the accumulator is neither read nor written.
    Untouched,
    /// Start from this value (ZeroAccumulate's seed, LoadAccumulate's imm1).
    Seed(f32),
    /// Accumulate: continue from what the previous instruction left.
    Continue,
}

/// ScalarTensorTensor (0x9d) with Accumulate / ZeroAccumulate (isa-facts-dve-pool Q15):
/// dst is written as usual and each fp32 result is added to the lane accumulator;
/// ZeroAccumulate seeds 0.0.
pub fn stt_accum_start(cmd: AccumCmd) -> AccumStart {
    match cmd {
        AccumCmd::ACCUMULATE => AccumStart::Continue,
        AccumCmd::ZERO_ACCUMULATE => AccumStart::Seed(0.0),
        _ => AccumStart::Untouched,
    }
}

/// How STT folds one result into the accumulator (Q15: an fp32 add).
#[inline]
pub fn stt_accumulate(acc: f32, result: f32) -> f32 {
    alu_arith(AluOp::ADD, acc, result).unwrap_or(f32::NAN)
}

/// TensorTensorScan's step (isa-facts-dve-pool Q16, decision 12: the NKI recurrence):
/// `r[i] = op1(op0(d0[i], r[i-1]), d1[i])` in fp32, `r[-1] = imm0`; `reverse_operands`
/// bit 0 swaps op0's operands, bit 1 op1's; BYPASS passes its data operand.
#[inline]
pub fn scan_step(
    ops: (AluOp, AluOp),
    reverse: (bool, bool),
    d0: f32,
    prev: f32,
    d1: f32,
) -> Result<f32, NumError> {
    let t = stage_arith(ops.0, d0, prev, reverse.0)?;
    stage_arith(ops.1, t, d1, reverse.1)
}

/// SelectReduce's false arm (isa-facts-dve-pool Q18): byte 38 (`reverse_operands`) == First
/// writes `imm0` (fp32) where the predicate is false (the compiler's "false-fill"); None
/// keeps dst there.
pub const fn select_reduce_false_fill(reverse_operands: RevOps) -> bool {
    reverse_operands.0 == RevOps::FIRST.0
}

/// SelectReduce's running max: ZeroAccumulate starts from −inf, Accumulate continues, Idle
/// leaves the accumulator alone (Q18, §11.4; NKI `reset_reduce` seeds −inf).
pub fn select_reduce_accum_start(cmd: AccumCmd) -> AccumStart {
    match cmd {
        AccumCmd::ACCUMULATE => AccumStart::Continue,
        AccumCmd::ZERO_ACCUMULATE => AccumStart::Seed(f32::NEG_INFINITY),
        _ => AccumStart::Untouched,
    }
}

/// Whether DveReadAccumulator (0x9b) keeps the accumulator it reads (Q19: keeps).
pub const ACCUMULATOR_READ_KEEPS: bool = true;

/// The FindIndex8 / MatchReplace8 first-match core (isa-facts-dve-pool §16.4, Q23): the
/// matched flags start clear (every 0x6e / 0x6f clears them first), elements are tried in
/// flat order, each against the unmatched keys in ascending slot order; exact ordered fp32
/// equality (NaN never matches) records the element for that key. Returns per key the flat
/// index of its match, or `None`.
pub fn search_first_matches(keys: &[f32; SEARCH_SLOTS], xs: &[f32]) -> [Option<u32>; SEARCH_SLOTS] {
    let mut found = [None; SEARCH_SLOTS];
    search_first_matches_from(keys, &mut found, xs, 0);
    found
}

/// [`search_first_matches`] over a lane's elements in pieces: `xs` are the elements from
/// flat index `base` on, `found` holds the matches of the elements before them.
#[inline]
pub fn search_first_matches_from(
    keys: &[f32; SEARCH_SLOTS],
    found: &mut [Option<u32>; SEARCH_SLOTS],
    xs: &[f32],
    base: u32,
) {
    for (i, &x) in xs.iter().enumerate() {
        if let Some(n) = (0..SEARCH_SLOTS).find(|&n| found[n].is_none() && keys[n] == x) {
            found[n] = Some(base + i as u32);
        }
    }
}

/// Max8's eight values (Q22): the 8 largest of the lane as a multiset under the fp32 order
/// with NaN below every number (maxNum quiets NaNs), ascending; with fewer than 8 numbers
/// the NaNs fill the low slots.
pub fn max8_values(xs: &[f32]) -> [f32; SEARCH_SLOTS] {
    let key = |x: f32| if x.is_nan() { f32::NEG_INFINITY } else { x };
    let mut v: Vec<f32> = xs.to_vec();
    // Stable: equal values keep their source order (Q22).
    v.sort_by(|a, b| {
        let (ka, kb) = (key(*a), key(*b));
        ka.partial_cmp(&kb)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then_with(|| b.is_nan().cmp(&a.is_nan()))
    });
    let mut out = [f32::NAN; SEARCH_SLOTS];
    let top = &v[v.len().saturating_sub(SEARCH_SLOTS)..];
    out[SEARCH_SLOTS - top.len()..].copy_from_slice(top);
    out
}

/// CrossLaneReduce's fold (isa-facts-dve-pool §8.4, Q13): ADD / AVERAGE / MAX in fp32 from the
/// first element, left to right (AVERAGE multiplies every element by `scale` first; MAX is
/// maxNum); the bitwise ops fold raw bits. `xs` are fp32 values or raw bits (as f32 bits) in
/// the fold order: ALL — channels ascending, elements slot-0-fastest; PARTITIONS — per
/// element, channels ascending.
pub fn cross_lane_fold(op: tpb_isa::ReduceOp, scale: f32, xs: &[u32]) -> u32 {
    use tpb_isa::ReduceOp as R;
    // ALU ops on fp32 (canonical NaN for a produced NaN, as every arith stage).
    let alu = |op: AluOp, a: f32, b: f32| alu_arith(op, a, b).unwrap_or(f32::NAN);
    let f = |b: u32| f32::from_bits(b);
    let mut it = xs.iter().copied();
    let Some(first) = it.next() else { return 0 };
    match op {
        R::BITWISE_OR => it.fold(first, |a, b| a | b),
        R::BITWISE_AND => it.fold(first, |a, b| a & b),
        R::BITWISE_XOR => it.fold(first, |a, b| a ^ b),
        R::AVERAGE => it
            .fold(alu(AluOp::MULT, f(first), scale), |a, b| {
                alu(AluOp::ADD, a, alu(AluOp::MULT, f(b), scale))
            })
            .to_bits(),
        R::MAX => it.fold(f(first), |a, b| alu(AluOp::MAX, a, f(b))).to_bits(),
        _ => it.fold(f(first), |a, b| alu(AluOp::ADD, a, f(b))).to_bits(),
    }
}

/// FindIndex8's value for a key never matched, per output dtype (§16.4: ≥ 32768; all ones).
pub const fn search_no_match(out_bits: u32) -> u32 {
    if out_bits >= 32 {
        u32::MAX
    } else {
        (1u32 << out_bits) - 1
    }
}

/// The ZeroAccumulate seed of the cache ops (§0.2 decision 10): op1's identity — add and
/// subtract 0.0, mult 1.0, max −inf, min +inf (G and NKI; C says "0").
pub fn cache_reduce_seed(op1: AluOp) -> f32 {
    match op1 {
        AluOp::MULT => 1.0,
        AluOp::MAX => f32::NEG_INFINITY,
        AluOp::MIN => f32::INFINITY,
        _ => 0.0,
    }
}

/// One cache-op step (isa-facts-dve-pool §12.5, Q25, Q26): `tmp = x op0 scalar0`, then
/// `acc = op1(tmp, acc)` in fp32 (NKI's operand order; G's `acc op1 tmp` differs only for
/// subtract). Returns `(tmp, acc)`.
#[inline]
pub fn cache_reduce_step(
    op0: AluOp,
    op1: AluOp,
    x: f32,
    scalar0: f32,
    acc: f32,
) -> Result<(f32, f32), NumError> {
    let tmp = stage_arith(op0, x, scalar0, false)?;
    Ok((tmp, alu_arith(op1, tmp, acc)?))
}

/// What TensorScalarCacheReduce (0x9a) writes to dst (§0.2 decision 9): the per-element
/// fold `tmp`; the reduction stays in the accumulator for DveReadAccumulator (0x9b).
/// TensorScalarCacheCumulative (0xe6) writes the running accumulator instead.
pub const CACHE_REDUCE_DST_IS_FOLD: bool = true;

// Issue 17a: the DVE/POOL compute slice.

/// A TensorTensor int-aluop operand from raw element bits (`tt-int-operands`).
pub const fn tt_int_operand(dtype: Dtype, raw: u64) -> u32 {
    match dtype {
        Dtype::INT8 => raw as u8 as i8 as i32 as u32,
        Dtype::INT16 => raw as u16 as i16 as i32 as u32,
        Dtype::UINT8 => raw as u8 as u32,
        Dtype::UINT16 => raw as u16 as u32,
        _ => raw as u32,
    }
}

/// A TensorTensor int-aluop result stored in `out` (`tt-int-operands`): the low bits (the
/// validator's signedness rule makes `out` an integer dtype).
pub const fn tt_int_result(out: Dtype, r: u32) -> u64 {
    match out.size() {
        Some(1) => (r & 0xFF) as u64,
        Some(2) => (r & 0xFFFF) as u64,
        _ => r as u64,
    }
}

/// The refusal of a 64-bit operand (`tt-int-operands`).
pub fn unsupported_64bit(what: &str) -> crate::report::FaultCause {
    crate::report::FaultCause::Unsupported {
        what: format!(
            "not supported: {what} with these INT64/UINT64 dtypes has no documented datapath \
             (isa-facts-dve-pool §1.5: the 64-bit path takes an int-aluop on three INT64 or \
             three UINT64 operands, or a bitvec op on one 64-bit dtype; there is no fp64)"
        ),
    }
}

/// Whether a Cast-like move from `a` to `b` is a raw-bit copy (`copy-when-same-dtype`).
pub const fn raw_move(a: Dtype, b: Dtype) -> bool {
    a.0 == b.0
}

/// CopyPredicatedScalar's inline scalar (`cp-pred-scalar-bytes`).
pub const fn cp_pred_scalar_inline(imm: u32, size: usize) -> u32 {
    match size {
        1 => imm & 0xFF,
        2 => imm & 0xFFFF,
        _ => imm,
    }
}

/// Reciprocal on the FP32 hub (`reciprocal-ieee`).
pub fn reciprocal_f32(x: f32) -> f32 {
    alu_arith(AluOp::DIVIDE, 1.0, x).unwrap_or(f32::NAN)
}

/// StreamShuffle's source channel of dst channel `ch` under the LoadMaskSelect `table`
/// (`stream-shuffle-mask`), or `None` when the channel is not written.
pub const fn stream_shuffle_source(table: &[u8; 32], ch: u32) -> Option<u32> {
    let m = table[(ch % 32) as usize];
    if m < 32 {
        Some(ch / 32 * 32 + m as u32)
    } else {
        None
    }
}

/// Why StreamShuffle refuses to run before any LoadMaskSelect (`stream-shuffle-mask`).
pub const STREAM_SHUFFLE_NO_TABLE: &str = "StreamShuffle (0x6a) ran with no LoadMaskSelect \
    (0x69) table loaded: tpb permutes by the most recent 0x69 table, and which table the \
    hardware reads is not public (isa-facts-dve-pool §14, Q20; the compiler emits its 0x69 \
    after the 0x6a); run load_mask_select first";

/// StreamTranspose's source of dst element `k` of channel `ch` (`stream-transpose-map`):
/// (source channel, source element).
pub const fn stream_transpose_source(ch: u32, k: u64) -> (u32, u64) {
    let (g, e) = (ch / 32, ch % 32);
    let (b, c) = (k / 32, k % 32);
    (32 * g + c as u32, 32 * b + e as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Issue 8 item 15: seed 001's v4 tensor4d_valid bound and the 0x20 marker are listed
    // choices (tpb-isa tests/validate.rs `seed001_v4_source_bound_not_applied_…` checks the
    // behaviour they describe).
    #[test]
    fn seed001_address_choices_are_listed() {
        for id in ["indirect-marker", "v4-tensor4d-bound"] {
            let a = ASSUMPTIONS.iter().find(|a| a.id == id).expect(id);
            assert!(a.source.contains("seed 001"), "{id}");
        }
    }

    #[test]
    fn ids_are_unique_and_texts_present() {
        let mut ids: Vec<_> = ASSUMPTIONS.iter().map(|a| a.id).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), ASSUMPTIONS.len());
        assert!(ASSUMPTIONS.iter().all(|a| !a.text.is_empty()));
    }

    #[test]
    fn bypass_passes_data_even_reversed() {
        assert_eq!(stage_arith(AluOp::BYPASS, 2.0, 5.0, true), Ok(2.0));
        assert_eq!(stage_arith(AluOp::SUBTRACT, 2.0, 5.0, true), Ok(3.0));
        assert_eq!(stage_arith(AluOp::SUBTRACT, 2.0, 5.0, false), Ok(-3.0));
        assert_eq!(stage_bitvec(AluOp::BYPASS, 0x1FF, 1, true, 8), Ok(0xFF));
        assert_eq!(
            stage_bitvec(AluOp::LOGICAL_SHIFT_LEFT, 1, 3, true, 32),
            Ok(6)
        );
    }

    #[test]
    fn ramp_wraps_and_iota_keeps_low_bits() {
        assert_eq!(ramp_value(i32::MAX, 1, 0, 0), i32::MIN);
        assert_eq!(ramp_value(0, -3, 2, -1), -5);
        let cfg = Fp8Config::default();
        assert_eq!(iota_output(Dtype::UINT8, 300, &cfg), 44);
        assert_eq!(iota_output(Dtype::INT8, -1, &cfg), 0xFF);
        assert_eq!(
            iota_output(Dtype::FP32, 16_777_217, &cfg),
            16_777_216f32.to_bits()
        );
        assert_eq!(iota_output(Dtype::BFLOAT16, 3, &cfg), 0x4040);
    }
}
