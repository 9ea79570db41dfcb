//! Issue 17a executors at the machine level: a fault changes nothing (decisions §3.9),
//! refusals name the missing fact, DVE-or-POOL placement (assumption
//! `dve-or-pool-placement`), operands paired by their own patterns (isa-facts-dve-pool §1.5,
//! §4.4), a strided reduce and StreamTranspose against plain loops (§7.4, §15).

mod support;

use support::*;
use tpb_isa::geometry::Space;
use tpb_isa::wire::{DtypePair, S3s3d3Tt, S4d4Tr};
use tpb_isa::{AluOp, Body, Dtype, Gen, Instruction, TensorSubdim};
use tpb_sim::engines::{place, EngineId};
use tpb_sim::{Config, FaultCause, Machine};

fn tt(gen: Gen, op: AluOp, dtypes: (Dtype, Dtype, Dtype), n: u8, count: u16) -> Instruction {
    let mut i = inst(0x41, gen);
    i.body = Body::S3s3d3Tt(S3s3d3Tt {
        in0_in1_dtype: DtypePair::new(dtypes.0, dtypes.1),
        out_dtype: dtypes.2,
        op,
        num_active_channels: n,
        src0_mem_pattern: tensor(sbuf(gen, 0, 0), &[(1, count)]),
        src1_mem_pattern: tensor(sbuf(gen, 0, 0x400), &[(1, count)]),
        dst_mem_pattern: tensor(sbuf(gen, 0, 0x800), &[(1, count)]),
    });
    i
}

fn tr(gen: Gen, opcode: u8, s: S4d4Tr) -> Instruction {
    let mut i = inst(opcode, gen);
    i.body = Body::S4d4Tr(s);
    i
}

// decisions §3.9: integer divide by zero in one element faults before any write.
#[test]
fn tensor_tensor_int_divide_by_zero_changes_nothing() {
    let gen = Gen::Cayman;
    let mut m = Machine::new(Config::new(gen));
    let rows = |v: u32| vec![vec![v, v + 1, v + 2, v + 3]; 2];
    write_rows(&mut m, Space::Sbuf, 0, 0, Dtype::INT32, &rows(100));
    let mut b = rows(7);
    b[1][2] = 0;
    write_rows(&mut m, Space::Sbuf, 0, 0x400, Dtype::INT32, &b);
    write_rows(&mut m, Space::Sbuf, 0, 0x800, Dtype::INT32, &rows(0xEE));
    let before = m.clone();
    let i = tt(
        gen,
        AluOp::DIVIDE_INT,
        (Dtype::INT32, Dtype::INT32, Dtype::INT32),
        2,
        4,
    );
    let f = m.step(&i).unwrap_err();
    assert!(matches!(f.cause, FaultCause::Numeric(_)), "{f}");
    assert_eq!(m, before, "a fault changes nothing");
    // Without the zero the same instruction divides (truncating, decisions §4.12).
    b[1][2] = 3;
    write_rows(&mut m, Space::Sbuf, 0, 0x400, Dtype::INT32, &b);
    m.step(&i).unwrap();
    let got = read_rows(&m, Space::Sbuf, 0, 2, 0x800, Dtype::INT32, 4);
    assert_eq!(got[1], vec![100 / 7, 101 / 8, 102 / 3, 103 / 10]);
}

// The refusals of the opcode table name the missing fact.
#[test]
fn refusals_name_the_missing_fact() {
    let gen = Gen::Cayman;
    let mut m = Machine::new(Config::new(gen));
    let s = S4d4Tr {
        src_mem_pattern: tensor(sbuf(gen, 0, 0), &[(1, 64)]),
        in_dtype: Dtype::FP32,
        out_dtype: Dtype::FP32,
        num_active_channels: 32,
        op: AluOp::BYPASS,
        dst_mem_pattern: tensor(sbuf(gen, 0, 0x400), &[(1, 64)]),
        ..S4d4Tr::default()
    };
    let f = m.step(&tr(gen, 0x6A, s)).unwrap_err();
    assert!(f.to_string().contains("LoadMaskSelect"), "{f}");
    // A 64-bit source with a 32-bit result has no documented datapath.
    let mixed = tt(
        gen,
        AluOp::ADD_INT,
        (Dtype::INT64, Dtype::INT64, Dtype::INT32),
        1,
        4,
    );
    let f = m.step(&mixed).unwrap_err();
    assert!(f.to_string().contains("INT64/UINT64"), "{f}");
}

// Assumption `dve-or-pool-placement`: DVE by default, POOL when asked, never ACT.
#[test]
fn dve_or_pool_opcodes_run_on_either_queue() {
    let gen = Gen::Cayman;
    let i = tt(
        gen,
        AluOp::ADD,
        (Dtype::FP32, Dtype::FP32, Dtype::FP32),
        1,
        4,
    );
    assert_eq!(place([&i], gen, &[]).unwrap(), vec![EngineId::Dve]);
    assert_eq!(
        place([&i], gen, &[(0, Some(EngineId::Pool))]).unwrap(),
        vec![EngineId::Pool]
    );
    assert!(place([&i], gen, &[(0, Some(EngineId::Act))]).is_err());
    // CopyPredicated is DVE only.
    let mut cp = i;
    cp.header.opcode = tpb_isa::Opcode::COPY_PREDICATED;
    assert!(place([&cp], gen, &[(0, Some(EngineId::Pool))]).is_err());
}

// §4.4 "copy with optional reshape": each operand walks its own pattern.
#[test]
fn cast_pairs_elements_across_shapes() {
    let gen = Gen::Mariana;
    let mut m = Machine::new(Config::new(gen));
    let row: Vec<f32> = (0..12).map(|x| x as f32 * 1.25).collect();
    write_rows(
        &mut m,
        Space::Sbuf,
        0,
        0,
        Dtype::FP32,
        &f32_rows(std::slice::from_ref(&row)),
    );
    // src: 3 rows of 4 (slot 0 fastest); dst: every other bf16 element over 24.
    let s = S4d4Tr {
        src_mem_pattern: tensor(sbuf(gen, 0, 0), &[(1, 4), (4, 3)]),
        in_dtype: Dtype::FP32,
        out_dtype: Dtype::BFLOAT16,
        num_active_channels: 1,
        op: AluOp::BYPASS,
        dst_mem_pattern: tensor(sbuf(gen, 0, 0x100), &[(2, 12)]),
        ..S4d4Tr::default()
    };
    write_rows(
        &mut m,
        Space::Sbuf,
        0,
        0x100,
        Dtype::BFLOAT16,
        &[vec![0xAAAA; 24]],
    );
    m.step(&tr(gen, 0x47, s)).unwrap();
    let got = read_rows(&m, Space::Sbuf, 0, 1, 0x100, Dtype::BFLOAT16, 24);
    for k in 0..24 {
        let want = if k % 2 == 0 {
            row[k / 2].to_bits() >> 16 // exact in bf16: multiples of 1.25 up to 13.75
        } else {
            0xAAAA
        };
        assert_eq!(got[0][k], want, "element {k}");
    }
}

// §7.4, Q9: XY over a strided src, bf16 in, fp32 out, against a plain loop.
#[test]
fn reduce_xy_over_a_strided_source() {
    let gen = Gen::Cayman;
    let mut m = Machine::new(Config::new(gen));
    let (nx, ny, nz) = (3u16, 4u16, 5u16);
    let vals: Vec<Vec<u32>> = (0..2)
        .map(|p| {
            (0..256)
                .map(|i| (((i * 37 + p * 11) % 97) as f32 - 48.0).to_bits() >> 16)
                .collect()
        })
        .collect();
    write_rows(&mut m, Space::Sbuf, 0, 0, Dtype::BFLOAT16, &vals);
    // x step 2, y step 8, z step 40: a gappy walk.
    let s = S4d4Tr {
        src_mem_pattern: tensor(sbuf(gen, 0, 0), &[(2, nx), (8, ny), (40, nz)]),
        in_dtype: Dtype::BFLOAT16,
        out_dtype: Dtype::FP32,
        num_active_channels: 2,
        op: AluOp::ADD,
        op_dim: TensorSubdim::XY,
        dst_mem_pattern: tensor(sbuf(gen, 0, 0x400), &[(1, nz)]),
        ..S4d4Tr::default()
    };
    m.step(&tr(gen, 0x42, s)).unwrap();
    let got = read_rows(&m, Space::Sbuf, 0, 2, 0x400, Dtype::FP32, u64::from(nz));
    for p in 0..2 {
        for z in 0..nz as usize {
            let mut acc: Option<f32> = None;
            for y in 0..ny as usize {
                for x in 0..nx as usize {
                    let e = f32::from_bits(vals[p][2 * x + 8 * y + 40 * z] << 16);
                    acc = Some(acc.map_or(e, |a| a + e));
                }
            }
            assert_eq!(got[p][z], acc.unwrap().to_bits(), "p{p} z{z}");
        }
    }
}

// §15, Q21: 64 channels × 64 elements: two channel groups, two element blocks.
#[test]
fn stream_transpose_tiles() {
    let gen = Gen::Cayman;
    let mut m = Machine::new(Config::new(gen));
    let rows: Vec<Vec<u32>> = (0..64u32)
        .map(|c| (0..64u32).map(|k| c * 1000 + k).collect())
        .collect();
    write_rows(&mut m, Space::Sbuf, 0, 0, Dtype::INT32, &rows);
    let s = S4d4Tr {
        src_mem_pattern: tensor(sbuf(gen, 0, 0), &[(1, 64)]),
        in_dtype: Dtype::INT32,
        out_dtype: Dtype::INT32,
        num_active_channels: 64,
        op: AluOp::BYPASS,
        dst_mem_pattern: tensor(sbuf(gen, 0, 0x400), &[(1, 64)]),
        ..S4d4Tr::default()
    };
    m.step(&tr(gen, 0x6B, s)).unwrap();
    let got = read_rows(&m, Space::Sbuf, 0, 64, 0x400, Dtype::INT32, 64);
    for (ch, row) in got.iter().enumerate() {
        for (k, &v) in row.iter().enumerate() {
            let (g, e, b, c) = (ch / 32, ch % 32, k / 32, k % 32);
            assert_eq!(v, rows[32 * g + c][32 * b + e], "[{ch}][{k}]");
        }
    }
}

// Q10 (`transpose-reduce-order`): 0x83 = the StreamTranspose move, then TensorReduce.
#[test]
fn transpose_reduce_moves_then_reduces() {
    let gen = Gen::Cayman;
    let mut m = Machine::new(Config::new(gen));
    let rows: Vec<Vec<u32>> = (0..32u32)
        .map(|c| {
            (0..64u32)
                .map(|k| ((c * 64 + k) as f32).to_bits())
                .collect()
        })
        .collect();
    write_rows(&mut m, Space::Sbuf, 0, 0, Dtype::FP32, &rows);
    let s = S4d4Tr {
        src_mem_pattern: tensor(sbuf(gen, 0, 0), &[(1, 32), (32, 2)]),
        in_dtype: Dtype::FP32,
        out_dtype: Dtype::FP32,
        num_active_channels: 32,
        op: AluOp::MAX,
        op_dim: TensorSubdim::X,
        dst_mem_pattern: tensor(sbuf(gen, 0, 0x400), &[(1, 2)]),
        ..S4d4Tr::default()
    };
    m.step(&tr(gen, 0x83, s)).unwrap();
    let got = read_rows(&m, Space::Sbuf, 0, 32, 0x400, Dtype::FP32, 2);
    for (ch, row) in got.iter().enumerate() {
        for (j, &v) in row.iter().enumerate() {
            // Moved element k of channel ch is src[k % 32][32 * (k / 32) + ch]; group j is
            // k in 32j..32j+32: the max over c of src[c][32j + ch].
            let want = (0..32)
                .map(|c| f32::from_bits(rows[c][32 * j + ch]))
                .fold(f32::MIN, f32::max);
            assert_eq!(v, want.to_bits(), "[{ch}][{j}]");
        }
    }
}

// §1.5 64-bit path: the carry crosses the 32-bit halves; MULT keeps the low 64 bits.
#[test]
fn tensor_tensor_int64() {
    let gen = Gen::Cayman;
    let mut m = Machine::new(Config::new(gen));
    let a: [u64; 4] = [0xFFFF_FFFF, u64::MAX, 0x1234_5678_9ABC_DEF0, 5];
    let b: [u64; 4] = [1, 1, 0x0FED_CBA9_8765_4321, (-3i64) as u64];
    let bytes = |v: &[u64]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    let host = |off: u64| {
        tpb_sim::HostTensor::at(Space::Sbuf, 0..1)
            .offset(off)
            .elements(Dtype::INT64, 4)
    };
    m.write_tensor(&host(0), &bytes(&a)).unwrap();
    m.write_tensor(&host(0x400), &bytes(&b)).unwrap();
    type Reference = fn(u64, u64) -> u64;
    let ops: [(AluOp, Reference); 4] = [
        (AluOp::ADD_INT, |x, y| x.wrapping_add(y)),
        (AluOp::MULT_INT, |x, y| x.wrapping_mul(y)),
        (AluOp::MAX_INT, |x, y| (x as i64).max(y as i64) as u64),
        (AluOp::DIVIDE_INT, |x, y| {
            (x as i64).wrapping_div(y as i64) as u64
        }),
    ];
    for (op, f) in ops {
        let i = tt(gen, op, (Dtype::INT64, Dtype::INT64, Dtype::INT64), 1, 4);
        m.step(&i).unwrap();
        let got: Vec<u64> = m
            .read_tensor(&host(0x800))
            .unwrap()
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .collect();
        let want: Vec<u64> = a.iter().zip(&b).map(|(x, y)| f(*x, *y)).collect();
        assert_eq!(got, want, "{op}");
    }
}
