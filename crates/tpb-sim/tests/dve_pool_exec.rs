//! Issue 17a executors at the machine level: a fault changes nothing (decisions §3.9),
//! refusals name the missing fact, DVE-or-POOL placement (assumption
//! `dve-or-pool-placement`), operands paired by their own patterns (isa-facts-dve-pool §1.5,
//! §4.4), a strided reduce and StreamTranspose against plain loops (§7.4, §15).

mod support;

use support::*;
use tpb_isa::geometry::Space;
use tpb_isa::wire::{Bytes, DtypePair, S3s3d3Tt, S4d4Tr};
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
    // StreamShuffle before any LoadMaskSelect (§14, Q20, `stream-shuffle-mask`).
    let before = m.clone();
    let f = m.step(&tr(gen, 0x6A, s)).unwrap_err();
    assert!(matches!(f.cause, FaultCause::Unsupported { .. }), "{f}");
    assert!(f.to_string().contains("LoadMaskSelect"), "{f}");
    assert!(f.to_string().contains("Q20"), "{f}");
    assert!(m == before, "the refusal changes nothing");
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

// ---- StreamShuffle 0x6a (isa-facts-dve-pool §14; Q20, assumption `stream-shuffle-mask`) ----

/// Loads `table` with LoadMaskSelect (0x69, §14.2).
fn load_mask(m: &mut Machine, gen: Gen, table: [u8; 32]) {
    let mut i = inst(0x69, gen);
    if let Body::CtrlIm(s) = &mut i.body {
        s.immediate = Bytes(table);
    }
    m.step(&i).unwrap();
}

/// A StreamShuffle of `n` channels × `count` int32 elements, src at `src`, dst at `dst`.
fn shuffle(gen: Gen, n: u8, count: u16, src: Addr4Pair) -> Instruction {
    tr(
        gen,
        0x6A,
        S4d4Tr {
            src_mem_pattern: tensor(sbuf(gen, src.0, src.1), &[(1, count)]),
            in_dtype: Dtype::INT32,
            out_dtype: Dtype::INT32,
            num_active_channels: n,
            op: AluOp::BYPASS,
            dst_mem_pattern: tensor(sbuf(gen, src.2, src.3), &[(1, count)]),
            ..S4d4Tr::default()
        },
    )
}

/// (src partition, src offset, dst partition, dst offset).
type Addr4Pair = (u32, u32, u32, u32);

/// Channel c holds c·1000 + k.
fn channel_rows(n: u32, count: u32) -> Vec<Vec<u32>> {
    (0..n)
        .map(|c| (0..count).map(|k| c * 1000 + k).collect())
        .collect()
}

/// What `stream-shuffle-mask` says dst channel `ch` holds: the selected source row, or the
/// old dst row.
fn shuffled(table: &[u8; 32], src: &[Vec<u32>], old: &[Vec<u32>], ch: usize) -> Vec<u32> {
    let m = table[ch % 32] as usize;
    if m < 32 {
        src[ch / 32 * 32 + m].clone()
    } else {
        old[ch].clone()
    }
}

// §14.1: an identity table copies every channel; a reversal maps lane j to 31 − j in each
// of the four groups.
#[test]
fn stream_shuffle_identity_and_reversal() {
    let gen = Gen::Cayman;
    for table in [
        std::array::from_fn(|j| j as u8),
        std::array::from_fn(|j| 31 - j as u8),
    ] {
        let mut m = Machine::new(Config::new(gen));
        let src = channel_rows(128, 8);
        write_rows(&mut m, Space::Sbuf, 0, 0, Dtype::INT32, &src);
        let old = vec![vec![0xEE; 8]; 128];
        write_rows(&mut m, Space::Sbuf, 0, 0x400, Dtype::INT32, &old);
        load_mask(&mut m, gen, table);
        let r = m.step(&shuffle(gen, 128, 8, (0, 0, 0, 0x400))).unwrap();
        assert_eq!(r.elements, 128 * 8);
        let got = read_rows(&m, Space::Sbuf, 0, 128, 0x400, Dtype::INT32, 8);
        for (ch, row) in got.iter().enumerate() {
            assert_eq!(*row, shuffled(&table, &src, &old, ch), "channel {ch}");
        }
        assert_eq!(got[33], src[if table[1] == 1 { 33 } else { 62 }]);
    }
}

// Q20 / nki-semantics §4 ("mask 255 … preserving"): 255 and the compiler's count|0x20
// sentinel leave the dst channel unwritten; 64 channels starting at partition 64.
#[test]
fn stream_shuffle_sentinels_keep_the_dst_channel() {
    let gen = Gen::Mariana;
    let mut m = Machine::new(Config::new(gen));
    let src = channel_rows(64, 4);
    write_rows(&mut m, Space::Sbuf, 64, 0, Dtype::INT32, &src);
    let old: Vec<Vec<u32>> = (0..64).map(|c| vec![0xD000 + c; 4]).collect();
    write_rows(&mut m, Space::Sbuf, 64, 0x200, Dtype::INT32, &old);
    let table: [u8; 32] = std::array::from_fn(|j| match j {
        3 => 255,
        4 => 32 | 0x20, // the compiler's passthrough for 32 partitions
        5 => 63,        // valid for 0x69 (< 64), still ≥ 32
        _ => (j as u8 + 1) % 32,
    });
    load_mask(&mut m, gen, table);
    let r = m.step(&shuffle(gen, 64, 4, (64, 0, 64, 0x200))).unwrap();
    let got = read_rows(&m, Space::Sbuf, 64, 64, 0x200, Dtype::INT32, 4);
    for (ch, row) in got.iter().enumerate() {
        assert_eq!(*row, shuffled(&table, &src, &old, ch), "channel {ch}");
    }
    assert_eq!(got[3], old[3]);
    assert_eq!(got[36], old[36]);
    assert_eq!(got[37], old[37]);
    assert_eq!(got[38], src[39]);
    assert_eq!(
        r.bytes_written,
        (64 - 6) * 4 * 4,
        "only the written channels"
    );
}

// §14.1 (NKI: in place allowed): every source is read before the first write, so a
// rotation in place moves each old row once.
#[test]
fn stream_shuffle_in_place_reads_before_writing() {
    let gen = Gen::Cayman;
    let mut m = Machine::new(Config::new(gen));
    let src = channel_rows(32, 16);
    write_rows(&mut m, Space::Sbuf, 32, 0x40, Dtype::INT32, &src);
    let table: [u8; 32] = std::array::from_fn(|j| ((j + 1) % 32) as u8);
    load_mask(&mut m, gen, table);
    m.step(&shuffle(gen, 32, 16, (32, 0x40, 32, 0x40))).unwrap();
    let got = read_rows(&m, Space::Sbuf, 32, 32, 0x40, Dtype::INT32, 16);
    for ch in 0..32 {
        assert_eq!(got[ch], src[(ch + 1) % 32], "channel {ch}");
    }
}

// Q20: the table is the most recent LoadMaskSelect's; a later 0x69 replaces it. Strided
// patterns walk their own elements; partial use of a group (lanes 8.. unwritten) leaves the
// rest of that group alone.
#[test]
fn stream_shuffle_uses_the_latest_table_and_partial_groups() {
    let gen = Gen::Cayman;
    let mut m = Machine::new(Config::new(gen));
    let src = channel_rows(32, 8);
    write_rows(&mut m, Space::Sbuf, 0, 0, Dtype::INT32, &src);
    let old = vec![vec![7; 8]; 32];
    write_rows(&mut m, Space::Sbuf, 0, 0x100, Dtype::INT32, &old);
    load_mask(&mut m, gen, [0; 32]);
    let table: [u8; 32] = std::array::from_fn(|j| if j < 8 { 7 - j as u8 } else { 255 });
    load_mask(&mut m, gen, table);
    // Every other element of the source row into the first 4 dst elements.
    let mut i = shuffle(gen, 32, 4, (0, 0, 0, 0x100));
    if let Body::S4d4Tr(s) = &mut i.body {
        s.src_mem_pattern = tensor(sbuf(gen, 0, 0), &[(2, 4)]);
    }
    m.step(&i).unwrap();
    let got = read_rows(&m, Space::Sbuf, 0, 32, 0x100, Dtype::INT32, 8);
    for ch in 0..32 {
        if ch < 8 {
            let want: Vec<u32> = (0..8)
                .map(|k| if k < 4 { src[7 - ch][2 * k] } else { 7 })
                .collect();
            assert_eq!(got[ch], want, "channel {ch}");
        } else {
            assert_eq!(got[ch], old[ch], "channel {ch} is not written");
        }
    }
}

// Decisions §3.9: a StreamShuffle that faults (dst past the active bytes) changes nothing,
// and only the selected source channels count as read (no uninitialised warning for lanes
// nobody reads).
#[test]
fn stream_shuffle_faults_change_nothing_and_reads_only_selected_channels() {
    let gen = Gen::Cayman;
    let mut m = Machine::new(Config::new(gen));
    write_rows(&mut m, Space::Sbuf, 0, 0, Dtype::INT32, &channel_rows(1, 8));
    load_mask(&mut m, gen, [0; 32]);
    let r = m.step(&shuffle(gen, 32, 8, (0, 0, 0, 0x400))).unwrap();
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    let got = read_rows(&m, Space::Sbuf, 0, 32, 0x400, Dtype::INT32, 8);
    assert!(got.iter().all(|row| *row == channel_rows(1, 8)[0]));
    load_mask(&mut m, gen, [1; 32]);
    let r = m.step(&shuffle(gen, 32, 8, (0, 0, 0, 0x400))).unwrap();
    assert!(!r.warnings.is_empty(), "channel 1 was never written");
    let before = m.clone();
    let mut bad = shuffle(gen, 32, 8, (0, 0, 0, 0x400));
    if let Body::S4d4Tr(s) = &mut bad.body {
        s.dst_mem_pattern = tensor(sbuf(gen, 0, 0x37FF0), &[(1, 8)]);
    }
    assert!(m.step(&bad).is_err());
    assert!(m == before, "a fault changes nothing");
}
