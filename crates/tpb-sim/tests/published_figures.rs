//! Every cost figure the public NKI documentation gives, reproduced by the timing model
//! (issue 28): one row per published formula or figure with its inputs, the published value
//! and its source line, and tpb's value. Per-instruction formulas are evaluated on the
//! operands the simulator records; schedule-level figures (DMA bandwidth and latency, the
//! matmul-shape advice, back-to-back transposes, the dependent ScalarE chain) run real
//! programs on the engine scheduler. The rows are docs/engines.md's table "Published
//! figures → tpb" (regenerate with `TPB_BLESS=1`). Sources: docs/engines.md's list (ISA-2.26
//! = aws-neuron-sdk v2.26.0 nki/isa/__init__.py; ARCH1/2/3, PERF, DMA-BW, DGE at 81ce03ae).

use std::ops::Range;
use tpb_isa::geometry::{Geometry, Space};
use tpb_isa::text::{asm, AsmOptions};
use tpb_isa::{AluOp, Body, Dtype, Gen, Instruction, Opcode};
use tpb_sim::engines::{
    place, run_engines, Costs, EngineId, EngineOptions, EngineRun, Priced, Stop, Timing,
};
use tpb_sim::{Config, CostShape, Machine, MemAccess, OperandShape, Region};

/// One published figure and tpb's value.
struct Row {
    what: String,
    inputs: String,
    published: f64,
    unit: &'static str,
    source: &'static str,
    tpb: Option<f64>,
    /// Allowed relative error: 10 % for instruction costs, 25 % for bandwidth and latency.
    tolerance: f64,
}

fn costs(gen: Gen) -> Costs {
    Timing::default().costs(gen)
}

/// A recorded tensor operand: `elements` per partition over `parts`, `stride` elements apart.
fn operand(
    space: Space,
    write: bool,
    parts: Range<u32>,
    elements: u64,
    dtype: Dtype,
    stride: u64,
) -> MemAccess {
    let size = dtype.size().unwrap_or(4) as u64;
    MemAccess {
        operand: if write { "dst" } else { "src" },
        write,
        region: Region {
            space,
            partitions: parts,
            bytes: 0..elements * stride.max(1) * size,
        },
        runs: Vec::new(),
        exact: true,
        shape: Some(OperandShape {
            elements,
            dtype,
            elem_bytes: size,
            stride_bytes: stride * size,
        }),
    }
}

fn sbuf(n: u64, d: Dtype) -> MemAccess {
    operand(Space::Sbuf, false, 0..128, n, d, 1)
}
fn psum(n: u64, d: Dtype) -> MemAccess {
    operand(Space::Psum, false, 0..128, n, d, 1)
}
fn out(n: u64, d: Dtype) -> MemAccess {
    operand(Space::Sbuf, true, 0..128, n, d, 1)
}

/// Cycles of one instruction of `op` on `engine`, independent and back to back.
fn cycles(
    gen: Gen,
    op: Opcode,
    engine: EngineId,
    body: Body,
    shape: CostShape,
    ops: &[MemAccess],
) -> f64 {
    cycles_dep(gen, op, engine, body, shape, ops, false)
}

fn cycles_dep(
    gen: Gen,
    op: Opcode,
    engine: EngineId,
    body: Body,
    shape: CostShape,
    ops: &[MemAccess],
    dependent: bool,
) -> f64 {
    let p = Priced {
        engine,
        info: op.info(gen),
        body: &body,
        shape,
        accesses: ops,
        fallback_n: 0,
    };
    costs(gen).instruction_cycles(&p, dependent, false) as f64
}

fn body(op: Opcode) -> Body {
    Body::default_for(op.info(Gen::Cayman).map(|i| i.kind))
}

fn tt(op: AluOp) -> Body {
    match body(Opcode::TENSOR_TENSOR_ARITH) {
        Body::S3s3d3Tt(mut t) => {
            t.op = op;
            Body::S3s3d3Tt(t)
        }
        b => b,
    }
}

const E: CostShape = CostShape::Elementwise;

#[allow(clippy::too_many_arguments)]
fn row(
    what: &str,
    inputs: &str,
    published: f64,
    unit: &'static str,
    source: &'static str,
    tpb: f64,
) -> Row {
    Row {
        what: what.into(),
        inputs: inputs.into(),
        published,
        unit,
        source,
        tpb: Some(tpb),
        tolerance: 0.10,
    }
}

fn instruction_rows() -> Vec<Row> {
    use Dtype as D;
    use EngineId::{Act, Dve, Pe, Pool};
    let (s, c, m) = (Gen::Sunda, Gen::Cayman, Gen::Mariana);
    let cyc = "cycles";
    let isa = "ISA-2.26";
    let mut rows = vec![
        row(
            "activation",
            "N=512 fp32",
            512.0,
            cyc,
            "ISA-2.26 L166-173",
            cycles(
                c,
                Opcode::ACTIVATE,
                Act,
                body(Opcode::ACTIVATE),
                E,
                &[sbuf(512, D::FP32), out(512, D::FP32)],
            ),
        ),
        row(
            "activation (small tile)",
            "N=16 fp32",
            64.0,
            cyc,
            "ISA-2.26 L166-173 (MIN_II)",
            cycles(
                c,
                Opcode::ACTIVATE,
                Act,
                body(Opcode::ACTIVATE),
                E,
                &[sbuf(16, D::FP32), out(16, D::FP32)],
            ),
        ),
        row(
            "activation_reduce (Activate + ActReadAccumulator)",
            "N=512 fp32",
            576.0,
            cyc,
            "ISA-2.26 L235-242",
            cycles(
                c,
                Opcode::ACTIVATE,
                Act,
                body(Opcode::ACTIVATE),
                E,
                &[sbuf(512, D::FP32), out(512, D::FP32)],
            ) + cycles(
                c,
                Opcode::ACTIVATION_READ_ACCUMULATOR,
                Act,
                body(Opcode::ACTIVATION_READ_ACCUMULATOR),
                E,
                &[out(1, D::FP32)],
            ),
        ),
        row(
            "ActReadAccumulator",
            "1 element per partition",
            64.0,
            cyc,
            "ARCH1 L492",
            cycles(
                c,
                Opcode::ACTIVATION_READ_ACCUMULATOR,
                Act,
                body(Opcode::ACTIVATION_READ_ACCUMULATOR),
                E,
                &[out(1, D::FP32)],
            ),
        ),
        row(
            "tensor_scalar",
            "N=512 fp32, trn1",
            512.0,
            cyc,
            "ISA-2.26 L1676-1683",
            cycles(
                s,
                Opcode::TENSOR_SCALAR_ARITH,
                Dve,
                body(Opcode::TENSOR_SCALAR_ARITH),
                E,
                &[sbuf(512, D::FP32), out(512, D::FP32)],
            ),
        ),
        row(
            "tensor_copy",
            "N=512 fp32, trn1",
            512.0,
            cyc,
            "ISA-2.26 L1396-1401",
            cycles(
                s,
                Opcode::COPY,
                Dve,
                body(Opcode::COPY),
                E,
                &[sbuf(512, D::FP32), out(512, D::FP32)],
            ),
        ),
        row(
            "tensor_scalar, trn2 performance mode 4x",
            "N=2048 bf16, SBUF, contiguous",
            512.0,
            cyc,
            "ARCH2 L222-230",
            cycles(
                c,
                Opcode::TENSOR_SCALAR_ARITH,
                Dve,
                body(Opcode::TENSOR_SCALAR_ARITH),
                E,
                &[sbuf(2048, D::BFLOAT16), out(2048, D::BFLOAT16)],
            ),
        ),
        row(
            "tensor_copy, trn2 performance mode 2x",
            "N=2048 bf16, SBUF, stride 2 elements",
            1024.0,
            cyc,
            "ARCH2 L232-234 (1a without 1c)",
            cycles(
                c,
                Opcode::COPY,
                Dve,
                body(Opcode::COPY),
                E,
                &[
                    operand(Space::Sbuf, false, 0..128, 2048, D::BFLOAT16, 2),
                    out(2048, D::BFLOAT16),
                ],
            ),
        ),
        row(
            "tensor_copy, trn2 performance mode 2x (PSUM)",
            "N=2048 bf16, one operand in PSUM, contiguous",
            1024.0,
            cyc,
            "ARCH2 L235 (1b and 1c, one in PSUM)",
            cycles(
                c,
                Opcode::COPY,
                Dve,
                body(Opcode::COPY),
                E,
                &[psum(2048, D::BFLOAT16), out(2048, D::BFLOAT16)],
            ),
        ),
        row(
            "tensor_tensor (two SBUF inputs)",
            "N=512 fp32",
            1024.0,
            cyc,
            "ISA-2.26 L1793-1815 (otherwise: 2N)",
            cycles(
                c,
                Opcode::TENSOR_TENSOR_ARITH,
                Dve,
                tt(AluOp::ADD),
                E,
                &[sbuf(512, D::FP32), sbuf(512, D::FP32), out(512, D::FP32)],
            ),
        ),
        row(
            "tensor_tensor (one input in PSUM)",
            "N=512 fp32",
            512.0,
            cyc,
            "ISA-2.26 L1803-1804",
            cycles(
                c,
                Opcode::TENSOR_TENSOR_ARITH,
                Dve,
                tt(AluOp::ADD),
                E,
                &[sbuf(512, D::FP32), psum(512, D::FP32), out(512, D::FP32)],
            ),
        ),
        row(
            "tensor_tensor (bf16 add, SBUF, contiguous)",
            "N=512 bf16, trn1",
            512.0,
            cyc,
            "ISA-2.26 L1805-1811",
            cycles(
                s,
                Opcode::TENSOR_TENSOR_ARITH,
                Dve,
                tt(AluOp::ADD),
                E,
                &[
                    sbuf(512, D::BFLOAT16),
                    sbuf(512, D::BFLOAT16),
                    out(512, D::BFLOAT16),
                ],
            ),
        ),
        row(
            "tensor_tensor (bf16 divide, trn1)",
            "N=512 bf16",
            1024.0,
            cyc,
            "ISA-2.26 L1814-1815",
            cycles(
                s,
                Opcode::TENSOR_TENSOR_ARITH,
                Dve,
                tt(AluOp::DIVIDE),
                E,
                &[
                    sbuf(512, D::BFLOAT16),
                    sbuf(512, D::BFLOAT16),
                    out(512, D::BFLOAT16),
                ],
            ),
        ),
        row(
            "tensor_tensor_scan",
            "N=512 fp32",
            1024.0,
            cyc,
            "ISA-2.26 L1886-1893",
            cycles(
                c,
                Opcode::TENSOR_TENSOR_SCAN_ARITH,
                Dve,
                body(Opcode::TENSOR_TENSOR_SCAN_ARITH),
                E,
                &[sbuf(512, D::FP32), sbuf(512, D::FP32), out(512, D::FP32)],
            ),
        ),
        row(
            "scalar_tensor_tensor (otherwise)",
            "N=512 fp32",
            1024.0,
            cyc,
            "ISA-2.26 L1215-1231 (2N)",
            cycles(
                c,
                Opcode::SCALAR_TENSOR_TENSOR_ARITH,
                Dve,
                body(Opcode::SCALAR_TENSOR_TENSOR_ARITH),
                E,
                &[sbuf(512, D::FP32), sbuf(512, D::FP32), out(512, D::FP32)],
            ),
        ),
        row(
            "scalar_tensor_tensor (bf16, subtract then multiply)",
            "N=512 bf16",
            512.0,
            cyc,
            "ISA-2.26 L1223-1224 (N)",
            {
                let b = match body(Opcode::SCALAR_TENSOR_TENSOR_ARITH) {
                    Body::S2s2d2Stt(mut t) => {
                        t.op0 = AluOp::SUBTRACT;
                        t.op1 = AluOp::MULT;
                        t.in0_in1_dtype = tpb_isa::wire::DtypePair::new(D::BFLOAT16, D::BFLOAT16);
                        Body::S2s2d2Stt(t)
                    }
                    b => b,
                };
                cycles(
                    c,
                    Opcode::SCALAR_TENSOR_TENSOR_ARITH,
                    Dve,
                    b,
                    E,
                    &[
                        sbuf(512, D::BFLOAT16),
                        sbuf(512, D::BFLOAT16),
                        out(512, D::BFLOAT16),
                    ],
                )
            },
        ),
        row(
            "tensor_copy_predicated (src SBUF, predicate PSUM)",
            "N=512 fp32",
            512.0,
            cyc,
            "ISA-2.26 L1521-1522",
            cycles(
                c,
                Opcode::COPY_PREDICATED,
                Dve,
                body(Opcode::COPY_PREDICATED),
                E,
                &[psum(512, D::FP32), sbuf(512, D::FP32), out(512, D::FP32)],
            ),
        ),
        row(
            "tensor_copy_predicated (both SBUF)",
            "N=512 fp32",
            1024.0,
            cyc,
            "ISA-2.26 L1523-1524",
            cycles(
                c,
                Opcode::COPY_PREDICATED,
                Dve,
                body(Opcode::COPY_PREDICATED),
                E,
                &[sbuf(512, D::FP32), sbuf(512, D::FP32), out(512, D::FP32)],
            ),
        ),
        row(
            "reciprocal",
            "N=512 fp32",
            4096.0,
            cyc,
            "ISA-2.26 L1187-1190",
            cycles(
                c,
                Opcode::RECIPROCAL,
                Dve,
                body(Opcode::RECIPROCAL),
                E,
                &[sbuf(512, D::FP32), out(512, D::FP32)],
            ),
        ),
        row(
            "memset (zero, bf16)",
            "N=512 output",
            256.0,
            cyc,
            "ISA-2.26 L714",
            {
                let b = match body(Opcode::MEMSET) {
                    Body::D4Mr(mut t) => {
                        t.dtype = D::BFLOAT16;
                        Body::D4Mr(t)
                    }
                    b => b,
                };
                cycles(c, Opcode::MEMSET, Dve, b, E, &[out(512, D::BFLOAT16)])
            },
        ),
        row(
            "memset (otherwise)",
            "N=512 fp32 output, value 1.0",
            512.0,
            cyc,
            "ISA-2.26 L715",
            {
                let b = match body(Opcode::MEMSET) {
                    Body::D4Mr(mut t) => {
                        t.dtype = D::FP32;
                        t.set_value = 1.0f32.to_bits();
                        Body::D4Mr(t)
                    }
                    b => b,
                };
                cycles(c, Opcode::MEMSET, Dve, b, E, &[out(512, D::FP32)])
            },
        ),
        row(
            "tensor_reduce",
            "N=4096 fp32 in, 1 out",
            4096.0,
            cyc,
            "ISA-2.26 L1597-1608 (N)",
            cycles(
                c,
                Opcode::TENSOR_REDUCE_ARITH,
                Dve,
                body(Opcode::TENSOR_REDUCE_ARITH),
                E,
                &[sbuf(4096, D::FP32), out(1, D::FP32)],
            ),
        ),
        row(
            "tensor_reduce (bf16 in and out, add)",
            "N=4096",
            2048.0,
            cyc,
            "ISA-2.26 L1605-1606 (N/2)",
            {
                let b = match body(Opcode::TENSOR_REDUCE_ARITH) {
                    Body::S4d4Tr(mut t) => {
                        t.in_dtype = D::BFLOAT16;
                        t.out_dtype = D::BFLOAT16;
                        t.op = AluOp::ADD;
                        Body::S4d4Tr(t)
                    }
                    b => b,
                };
                cycles(
                    c,
                    Opcode::TENSOR_REDUCE_ARITH,
                    Dve,
                    b,
                    E,
                    &[sbuf(4096, D::BFLOAT16), out(1, D::BFLOAT16)],
                )
            },
        ),
        row(
            "max8",
            "N=1024",
            1024.0,
            cyc,
            "ISA-2.26 L671-676",
            cycles(
                c,
                Opcode::MAX8,
                Dve,
                body(Opcode::MAX8),
                E,
                &[sbuf(1024, D::FP32), out(8, D::FP32)],
            ),
        ),
        row(
            "nc_find_index8",
            "N=1024",
            1024.0,
            cyc,
            "ISA-2.26 L746-751",
            cycles(
                c,
                Opcode::FIND_INDEX8,
                Dve,
                body(Opcode::FIND_INDEX8),
                E,
                &[sbuf(1024, D::FP32), out(8, D::UINT32)],
            ),
        ),
        row(
            "nc_match_replace8",
            "N=1024",
            1024.0,
            cyc,
            "ISA-2.26 L793-797 (min(MIN_II, N) misprint; 2.23: N)",
            cycles(
                c,
                Opcode::MATCH_REPLACE8,
                Dve,
                body(Opcode::MATCH_REPLACE8),
                E,
                &[sbuf(1024, D::FP32), out(1024, D::FP32)],
            ),
        ),
        row(
            "nc_stream_shuffle",
            "N=512",
            512.0,
            cyc,
            "ISA-2.26 L991-995",
            cycles(
                c,
                Opcode::STREAM_SHUFFLE,
                Dve,
                body(Opcode::STREAM_SHUFFLE),
                E,
                &[sbuf(512, D::FP32), out(512, D::FP32)],
            ),
        ),
        row(
            "nc_transpose (vector engine, 32x32)",
            "N=32",
            64.0,
            cyc,
            "ISA-2.26 L1052-1053",
            cycles(
                c,
                Opcode::STREAM_TRANSPOSE,
                Dve,
                body(Opcode::STREAM_TRANSPOSE),
                E,
                &[
                    operand(Space::Sbuf, false, 0..32, 32, D::FP32, 1),
                    operand(Space::Sbuf, true, 0..32, 32, D::FP32, 1),
                ],
            ),
        ),
        row(
            "range_select",
            "N=512",
            512.0,
            cyc,
            "ISA-2.26 L1133-1139",
            cycles(
                c,
                Opcode::RANGE_SELECT,
                Dve,
                body(Opcode::RANGE_SELECT),
                E,
                &[sbuf(512, D::FP32), out(512, D::FP32)],
            ),
        ),
        row(
            "tensor_scalar_reduce (CacheReduce + DveReadAccumulator)",
            "N=512 fp32",
            576.0,
            cyc,
            "ISA-2.26 L1736-1743",
            cycles(
                c,
                Opcode::TENSOR_SCALAR_CACHE_REDUCE,
                Dve,
                body(Opcode::TENSOR_SCALAR_CACHE_REDUCE),
                E,
                &[sbuf(512, D::FP32), out(512, D::FP32)],
            ) + cycles(
                c,
                Opcode::DVE_READ_ACCUMULATOR,
                Dve,
                body(Opcode::DVE_READ_ACCUMULATOR),
                E,
                &[out(1, D::FP32)],
            ),
        ),
        row(
            "iota",
            "N=512 output",
            662.0,
            cyc,
            "ISA-2.26 L565-567",
            cycles(
                c,
                Opcode::IOTA,
                Pool,
                body(Opcode::IOTA),
                E,
                &[out(512, D::FP32)],
            ),
        ),
        row(
            "affine_select",
            "N=512",
            662.0,
            cyc,
            "ISA-2.26 L289-292",
            cycles(
                c,
                Opcode::TENSOR_SCALAR_AFFINE_SELECT,
                Pool,
                body(Opcode::TENSOR_SCALAR_AFFINE_SELECT),
                E,
                &[sbuf(512, D::FP32), out(512, D::FP32)],
            ),
        ),
        row(
            "exponential on VectorE (trn3)",
            "N=2048 (ACT exp: 2048)",
            512.0,
            cyc,
            "ARCH3 L179 (4x the ScalarE exp)",
            cycles(
                m,
                Opcode::EXPONENTIAL,
                Dve,
                body(Opcode::EXPONENTIAL),
                E,
                &[sbuf(2048, D::FP32), out(2048, D::FP32)],
            ),
        ),
        row(
            "most-minor stride over 16 bytes",
            "tensor_scalar N=512 fp32, stride 8 elements (32 B), trn1",
            1024.0,
            cyc,
            "ARCH1 L756-763 (half bandwidth)",
            cycles(
                s,
                Opcode::TENSOR_SCALAR_ARITH,
                Dve,
                body(Opcode::TENSOR_SCALAR_ARITH),
                E,
                &[
                    operand(Space::Sbuf, false, 0..128, 512, D::FP32, 8),
                    out(512, D::FP32),
                ],
            ),
        ),
        row(
            "dependent back-to-back VectorE instruction",
            "tensor_scalar N=512 fp32 reading the previous output",
            612.0,
            cyc,
            "ARCH1 L401-404 (+100)",
            cycles_dep(
                s,
                Opcode::TENSOR_SCALAR_ARITH,
                Dve,
                body(Opcode::TENSOR_SCALAR_ARITH),
                E,
                &[sbuf(512, D::FP32), out(512, D::FP32)],
                true,
            ),
        ),
    ];
    let mm = |moving, stationary, fp32| CostShape::Matmul {
        moving,
        stationary,
        fp32,
        transpose: false,
    };
    let mm_rows = [
        (
            "nc_matmul",
            "N_stationary=128, N_moving=512, bf16",
            512.0,
            mm(512, 128, false),
            "ISA-2.26 L906-909",
        ),
        (
            "nc_matmul (fp32)",
            "N_stationary=128, N_moving=512, fp32",
            2048.0,
            mm(512, 128, true),
            "ISA-2.26 L910-911",
        ),
        (
            "nc_matmul (narrow stationary)",
            "N_stationary=32, N_moving=16, bf16",
            32.0,
            mm(16, 32, false),
            "ISA-2.26 L908 (min(64, N_stationary))",
        ),
    ];
    for (w, i, p, shape, src) in mm_rows {
        rows.push(row(
            w,
            i,
            p,
            cyc,
            src,
            cycles(
                c,
                Opcode::MATMUL,
                Pe,
                body(Opcode::MATMUL),
                shape,
                &[
                    sbuf(512, D::BFLOAT16),
                    operand(Space::Psum, true, 0..128, 512, D::FP32, 1),
                ],
            ),
        ));
    }
    let _ = isa;
    rows
}

fn clock_rows() -> Vec<Row> {
    let mut rows = Vec::new();
    let figures = [
        (
            Gen::Sunda,
            "trn1",
            "ARCH1 L65-75",
            [2800.0, 1120.0, 1400.0, 1400.0],
        ),
        (
            Gen::Cayman,
            "trn2",
            "ARCH2 L40-62",
            [2400.0, 960.0, 1200.0, 1200.0],
        ),
        (
            Gen::Mariana,
            "trn3",
            "ARCH3 L40-60",
            [2400.0, 1200.0, 1200.0, 1200.0],
        ),
    ];
    for (g, name, src, mhz) in figures {
        let t = costs(g);
        for (e, v) in [EngineId::Pe, EngineId::Dve, EngineId::Act, EngineId::Pool]
            .into_iter()
            .zip(mhz)
        {
            rows.push(row(
                &format!("{} clock", e.label()),
                name,
                v,
                "MHz",
                src,
                t.mhz(e) as f64,
            ));
        }
    }
    rows
}

fn run(
    gen: Gen,
    insts: &[Instruction],
    directives: &[(usize, Option<EngineId>)],
    m: &mut Machine,
) -> EngineRun {
    let engines = place(insts, gen, directives).expect("placed");
    let r = run_engines(m, insts, &engines, &EngineOptions::default());
    assert_eq!(r.stop, Stop::Completed, "{:?}", r.stop);
    r
}

/// A load of `parts` partitions × `bytes` per partition from HBM into SBUF: one DMA request
/// (a descriptor per partition, the partition dimension stepping by the SBUF partition
/// stride of the DMA map) that adds 1 to semaphore `sem` when its data has landed.
fn load(gen: Gen, parts: i64, bytes: i64, hbm: u64, offset: u64, sem: u8) -> Instruction {
    let stride = Geometry::of(gen).stride(Space::Sbuf);
    let text = format!(
        "dma_memcpy semaphore={sem} sem_increment=1 src=hbm+{hbm:#x}:[[{bytes},{parts}],[0,1]] \
         src_elem_size={bytes} dst=sbuf[p0]+{offset:#x}:[[{stride},{parts}],[0,1]] \
         dst_elem_size={bytes} in_dtype=fp32 out_dtype=fp32"
    );
    let mut insts = program(gen, &text);
    assert_eq!(insts.len(), 1, "{text}");
    insts.remove(0)
}

fn dma_machine(gen: Gen) -> Machine {
    let mut m = Machine::new(Config::new(gen));
    m.write_hbm(0, &vec![0u8; 2 << 20]).expect("HBM");
    m
}

fn dma_rows() -> Vec<Row> {
    let mut rows = Vec::new();
    for (g, name, published, src) in [
        (Gen::Sunda, "trn1", 272.0, "DMA-BW L61"),
        (Gen::Cayman, "trn2", 368.0, "DMA-BW L62"),
        (Gen::Mariana, "trn3", 528.0, "DMA-BW L63"),
    ] {
        let issuer = if g == Gen::Sunda {
            Some(EngineId::Pool)
        } else {
            None
        };
        let insts = [load(g, 128, 4096, 0, 0, 1)];
        let r = run(g, &insts, &[(0, issuer)], &mut dma_machine(g));
        let x = r
            .steps
            .iter()
            .find(|s| s.engine.is_dma_queue())
            .expect("a transfer");
        let gbps = (128.0 * 4096.0) / ((x.end_ps - x.start_ps) as f64 / 1000.0);
        rows.push(Row {
            tolerance: 0.25,
            ..row(
                "DMA bandwidth per NeuronCore (16 engines)",
                &format!("{name}, 128 partitions x 4 KiB"),
                published,
                "GB/s",
                src,
                gbps,
            )
        });
        if g == Gen::Cayman {
            let issue = &r.steps[0];
            rows.push(Row {
                tolerance: 0.25,
                ..row(
                    "DMA semaphore-to-start latency",
                    "trn2, after the issue",
                    1300.0,
                    "ns",
                    "DMA-BW L41",
                    (x.start_ps - issue.end_ps) as f64 / 1000.0,
                )
            });
            rows.push(row(
                "hardware DGE DMA issue",
                "trn2, from SP",
                600.0,
                "ns",
                "ARCH2 L364, DGE L124",
                (issue.end_ps - issue.start_ps) as f64 / 1000.0,
            ));
            // Two queues share the 16 engines: two loads from SP and ACT together move at
            // the core's bandwidth, not twice it.
            let insts = [
                load(g, 128, 4096, 0, 0, 1),
                load(g, 128, 4096, 1 << 20, 0x8000, 2),
            ];
            let r = run(g, &insts, &[(1, Some(EngineId::Act))], &mut dma_machine(g));
            let xs: Vec<_> = r.steps.iter().filter(|s| s.engine.is_dma_queue()).collect();
            let span = xs.iter().map(|s| s.end_ps).max().unwrap_or(0)
                - xs.iter().map(|s| s.start_ps).min().unwrap_or(0);
            rows.push(Row {
                tolerance: 0.25,
                ..row(
                    "DMA bandwidth, two queues at once (shared engines)",
                    "trn2, SP and ACT loads of 512 KiB",
                    368.0,
                    "GB/s",
                    "DMA-BW L39-63, DMA overview L29",
                    (2.0 * 128.0 * 4096.0) / (span as f64 / 1000.0),
                )
            });
        }
    }
    rows
}

fn program(gen: Gen, text: &str) -> Vec<Instruction> {
    asm(text, &AsmOptions::new(gen)).expect("assembles").insts()
}

/// Start-to-start interval of the last two steps of `engine` named `mnemonic`, in cycles.
fn last_ii(
    r: &EngineRun,
    engine: EngineId,
    mnemonic: &str,
    insts: &[Instruction],
    gen: Gen,
) -> f64 {
    let starts: Vec<u64> = r
        .steps
        .iter()
        .filter(|s| {
            s.engine == engine
                && insts[s.inst.index]
                    .info(gen)
                    .is_some_and(|i| i.mnemonic == mnemonic)
        })
        .map(|s| s.start_ps)
        .collect();
    let n = starts.len();
    r.costs.cycles_in(engine, starts[n - 1] - starts[n - 2]) as f64
}

fn pe_pair(stationary: u32, moving: u32, transpose: bool, dtype: &str) -> String {
    let t = if transpose { ",transpose_mode:1" } else { "" };
    let dtype = if dtype == "fp32" {
        "fp32 fp32_mode=high"
    } else {
        dtype
    };
    format!(
        "load_weights src=sbuf[p0]+0x0:[[1,{stationary}]] in={dtype} \
         ctrl=[num_active_rows:128,num_active_cols:{stationary},row_grp:0xf,col_grp:0xf{t}]\n\
         matmul src=sbuf[p0]+0x4000:[[1,{moving}]] in={dtype} \
         ctrl=[num_active_rows:128,num_active_cols:{stationary},psum_accumulate_flags:1,\
         row_grp:0xf,col_grp:0xf{t}] dst=psum[p0]+0x0:[[1,{moving}]]\n"
    )
}

fn schedule_rows() -> Vec<Row> {
    let g = Gen::Sunda;
    let mut rows = Vec::new();
    // PERF L670-683: a 128-column stationary and a 1-column moving ("short moving"): the fast
    // LoadStationary (128 / 4 = 32 cycles) hides behind each 64-cycle matmul.
    for (what, st, mv, published, src) in [
        (
            "matmul-shape advice: short moving",
            128,
            1,
            64.0,
            "PERF L676-680",
        ),
        (
            "matmul-shape advice: short stationary",
            1,
            128,
            128.0,
            "PERF L681",
        ),
    ] {
        let insts = program(g, &pe_pair(st, mv, false, "bf16").repeat(6));
        let mut m = Machine::new(Config::new(g));
        let r = run(g, &insts, &[], &mut m);
        rows.push(row(
            what,
            &format!("stationary {st} columns, moving {mv}, bf16, back to back (II)"),
            published,
            "cycles",
            src,
            last_ii(&r, EngineId::Pe, "matmul", &insts, g),
        ));
    }
    let g = Gen::Cayman;
    let insts = program(g, &pe_pair(128, 128, true, "fp32").repeat(6));
    let r = run(g, &insts, &[], &mut Machine::new(Config::new(g)));
    rows.push(row(
        "nc_transpose (tensor engine)",
        "P=128, F=128 fp32, back to back (II)",
        128.0,
        "cycles",
        "ISA-2.26 L1054-1055",
        last_ii(&r, EngineId::Pe, "matmul", &insts, g),
    ));
    // PERF L405-428: back-to-back dependent one-element ScalarE instructions on NC-v2.
    let g = Gen::Sunda;
    let chain: String = (0..6)
        .map(|i| {
            format!(
                "activate src=sbuf[p0..128]+{:#x}:[[1,1]] in_bias_dtype=fp32->fp32 out=fp32 \
                 activation_func=identity scale_value=1.0 bias_src_n=instruction bias=0.0 \
                 dst=sbuf[p0..128]+{:#x}:[[1,1]]\n",
                0x100 + 4 * i,
                0x104 + 4 * i
            )
        })
        .collect();
    let insts = program(g, &chain);
    let r = run(g, &insts, &[], &mut Machine::new(Config::new(g)));
    let ii = last_ii(&r, EngineId::Act, "activate", &insts, g);
    rows.push(row(
        "dependent 1-element ScalarE chain",
        "trn1, activation N=1 reading the previous output",
        264.0,
        "cycles",
        "PERF L426-428 (189 ns)",
        ii,
    ));
    rows
}

fn rows() -> Vec<Row> {
    let mut r = instruction_rows();
    r.extend(schedule_rows());
    r.extend(dma_rows());
    r.extend(clock_rows());
    r
}

fn markdown(rows: &[Row]) -> String {
    let mut s = String::from(
        "| figure | inputs | published | tpb | unit | source |\n|---|---|---|---|---|---|\n",
    );
    for r in rows {
        let tpb = r.tpb.map_or("—".to_string(), |v| {
            format!("{}", (v * 10.0).round() / 10.0)
        });
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} |\n",
            r.what, r.inputs, r.published, tpb, r.unit, r.source
        ));
    }
    s
}

const BEGIN: &str =
    "<!-- published-figures:begin (generated by crates/tpb-sim/tests/published_figures.rs) -->\n";
const END: &str = "<!-- published-figures:end -->";

// Each row: within 10 % of the published value (bandwidth and latency within 25 %).
#[test]
fn every_published_figure_is_reproduced() {
    let mut bad = Vec::new();
    for r in rows() {
        if let Some(v) = r.tpb {
            let err = (v - r.published).abs() / r.published.abs().max(1e-9);
            if err > r.tolerance {
                bad.push(format!(
                    "{} ({}): published {} {}, tpb {v} [{}]",
                    r.what, r.inputs, r.published, r.unit, r.source
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

// A formula can fail: doubling N of a tensor_reduce doubles its cost (N is the input's).
#[test]
fn n_is_the_input_not_the_output() {
    let c = |n| {
        cycles(
            Gen::Cayman,
            Opcode::TENSOR_REDUCE_ARITH,
            EngineId::Dve,
            body(Opcode::TENSOR_REDUCE_ARITH),
            E,
            &[sbuf(n, Dtype::FP32), out(1, Dtype::FP32)],
        )
    };
    assert_eq!(c(4096), 4096.0);
    assert_eq!(c(8192), 8192.0);
    assert_ne!(c(4096), 64.0);
}

// docs/engines.md carries the table this test computes.
#[test]
fn the_docs_table_is_the_computed_one() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/engines.md");
    let doc = std::fs::read_to_string(path).expect("docs/engines.md");
    let table = markdown(&rows());
    let (Some(a), Some(b)) = (doc.find(BEGIN), doc.find(END)) else {
        panic!("docs/engines.md lacks the published-figures markers");
    };
    let current = &doc[a + BEGIN.len()..b];
    if current != table {
        if std::env::var_os("TPB_BLESS").is_some() {
            let new = format!("{}{BEGIN}{table}{}", &doc[..a], &doc[b..]);
            std::fs::write(path, new).expect("write docs/engines.md");
        } else {
            panic!("docs/engines.md's published-figures table differs; rerun with TPB_BLESS=1:\n{table}");
        }
    }
}

/// xorshift64 (deterministic).
fn next(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

// The roofline (docs/engines.md "Roofline"): over random kernels of loads, matmuls and
// transposes on every generation, the estimate is never below the physical bound of the PE
// flops at the published peak and the HBM bytes at one core's HBM bandwidth.
#[test]
fn no_estimate_is_below_the_physical_bound() {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    for case in 0..12 {
        let g = [Gen::Sunda, Gen::Cayman, Gen::Mariana][case % 3];
        let mut insts = Vec::new();
        let mut directives = Vec::new();
        for k in 0..(2 + next(&mut state) % 5) {
            let parts = [8, 32, 128][(next(&mut state) % 3) as usize];
            let bytes = 256 << (next(&mut state) % 5);
            if g == Gen::Sunda || k % 2 == 1 {
                let e = if g == Gen::Sunda {
                    EngineId::Pool
                } else {
                    EngineId::Act
                };
                directives.push((insts.len(), Some(e)));
                insts.push(load(g, parts, bytes, 0, 0, 1));
                directives.push((insts.len(), None));
            } else {
                insts.push(load(g, parts, bytes, 0, 0, 1));
            }
        }
        for _ in 0..(1 + next(&mut state) % 4) {
            let st = [1, 32, 128][(next(&mut state) % 3) as usize];
            let mv = [1, 64, 512][(next(&mut state) % 3) as usize];
            let fp32 = next(&mut state).is_multiple_of(2);
            let text = pe_pair(
                st,
                mv,
                fp32 && g != Gen::Sunda && st == 128 && mv == 128,
                if fp32 { "fp32" } else { "bf16" },
            );
            insts.extend(program(g, &text));
        }
        let engines = place(&insts, g, &directives).expect("placed");
        let mut m = dma_machine(g);
        let r = run_engines(&mut m, &insts, &engines, &EngineOptions::default());
        let roof = r.roofline();
        assert!(roof.bound_ps() > 0, "case {case}: {roof}");
        assert!(roof.holds(), "case {case} on {g}: {roof}");
    }
}

// The bound can bind: a run whose estimate is shortened below it (a made-up 100× faster
// engine clock) is caught.
#[test]
fn a_too_fast_model_breaks_the_roofline() {
    let g = Gen::Cayman;
    let insts = program(g, &pe_pair(128, 512, false, "bf16").repeat(4));
    let engines = place(&insts, g, &[]).expect("placed");
    let mut timing = Timing::default();
    timing.set("CLOCK_MHZ_PE_CAYMAN", 99_000).unwrap();
    let opts = EngineOptions {
        timing,
        ..EngineOptions::default()
    };
    let r = run_engines(&mut Machine::new(Config::new(g)), &insts, &engines, &opts);
    let roof = r.roofline();
    assert_eq!(roof.bound_by(), "PE");
    assert!(!roof.holds(), "{roof}");
    let r = run_engines(
        &mut Machine::new(Config::new(g)),
        &insts,
        &engines,
        &EngineOptions::default(),
    );
    assert!(r.roofline().holds());
}
