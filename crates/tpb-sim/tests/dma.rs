//! HBM host I/O, DMAMEMCPY 0xB8 and TensorLoad/TensorStore 0xAA/0xAB on the machine
//! (isa-facts-pe-act-dma §3.2, §3.4, §3.5, §3.14; decisions §6.4), each against a plain
//! byte-walk reference written from the sheet.

use tpb_isa::geometry::Space;
use tpb_isa::text::{asm, AsmOptions};
use tpb_isa::wire::{Addr8, DmaDirect2d, DmaPattern};
use tpb_isa::{Body, Dtype, Gen, Instruction, Opcode};
use tpb_sim::{Config, FaultCause, HostTensor, Machine, WarningKind};

fn one(src: &str, gen: Gen) -> Instruction {
    asm(src, &AsmOptions::new(gen)).unwrap().insts()[0]
}

/// The plain reference of §3.4: element k of a 2-D pattern is `elem` bytes at
/// `base + (k % n0)·s0 + (k / n0)·s1`.
fn walk(base: i64, steps: [i32; 2], nums: [u16; 2], elem: u64) -> Vec<i64> {
    let mut v = Vec::new();
    for j in 0..i64::from(nums[1]) {
        for i in 0..i64::from(nums[0]) {
            let a = base + i * i64::from(steps[0]) + j * i64::from(steps[1]);
            v.extend((0..elem as i64).map(|b| a + b));
        }
    }
    v
}

// decisions §6.4: HBM is flat, starts uninitialised, is bounded by Config::hbm_bytes.
#[test]
fn hbm_host_io_and_limit() {
    let mut m = Machine::new(Config {
        hbm_bytes: 1 << 20,
        ..Config::new(Gen::Cayman)
    });
    let t = HostTensor::hbm(0x100).elements(Dtype::FP32, 4);
    assert_eq!(m.uninitialised_bytes(&t), Ok(16));
    let data: Vec<u8> = (0..16).collect();
    m.write_tensor(&t, &data).unwrap();
    assert_eq!(m.read_tensor(&t).unwrap(), data);
    assert_eq!(m.read_hbm(0x100, 16).unwrap(), data);
    assert_eq!(m.uninitialised_bytes(&t), Ok(0));
    let before = m.clone();
    let err = m.write_hbm((1 << 20) - 4, &[0; 8]).unwrap_err();
    assert!(
        err.to_string().contains("outside the 0x100000-byte HBM"),
        "{err}"
    );
    assert_eq!(m, before);
    assert_eq!(m.hbm_size(), 1 << 20);
    assert!(m.hbm_allocated() <= 1 << 16);
}

// §3.4: HBM → SBUF, 128 rows of 64 bytes, then back to another HBM range; bytes match the
// plain walk and the DMA semaphore is not the EVENTS update (the machine runs the data
// movement; the scheduler adds the completion semaphore).
#[test]
fn memcpy_hbm_sbuf_round_trip_matches_the_plain_walk() {
    let g = Gen::Cayman;
    let mut m = Machine::new(Config::new(g));
    let src: Vec<u8> = (0..128 * 64).map(|i| (i * 7 % 251) as u8).collect();
    m.write_hbm(0x1000, &src).unwrap();
    let load = one(
        "dma_memcpy src=hbm+0x1000:[[64,128],[0,1]] src_elem_size=64 \
         dst=sbuf[p0]+0x200:[[262144,128],[0,1]] dst_elem_size=64 in_dtype=uint8 out_dtype=uint8",
        g,
    );
    let r = m.step(&load).unwrap();
    assert_eq!(r.bytes_written, 128 * 64);
    let tile = HostTensor::at(Space::Sbuf, 0..128)
        .offset(0x200)
        .elements(Dtype::UINT8, 64);
    assert_eq!(m.read_tensor(&tile).unwrap(), src);
    // Back out, transposed into 64 rows of 128 one-byte elements (a reshape of the stream
    // is legal, equal byte counts).
    let store = one(
        "dma_memcpy src=sbuf[p0]+0x200:[[1,64],[262144,128]] src_elem_size=1 \
         dst=hbm+0x8000:[[1,8192],[0,1]] dst_elem_size=1 in_dtype=uint8 out_dtype=uint8",
        g,
    );
    m.step(&store).unwrap();
    let back = m.read_hbm(0x8000, 8192).unwrap();
    // The reference: the source walk's bytes, in order.
    let sbuf_addr = |p: i64, o: i64| src[(p * 64 + o - 0x200) as usize];
    let expect: Vec<u8> = walk(0x200, [1, 262144], [64, 128], 1)
        .into_iter()
        .map(|a| sbuf_addr(a / 262144, a % 262144))
        .collect();
    assert_eq!(back, expect);
}

// §3.5: a cast goes in → fp32 → out; compute_op add reads the destination (B += A).
#[test]
fn memcpy_cast_and_accumulate() {
    let g = Gen::Cayman;
    let mut m = Machine::new(Config::new(g));
    let xs = [1.5f32, -2.25, 3.0e38, 0.1];
    let bytes: Vec<u8> = xs.iter().flat_map(|x| x.to_le_bytes()).collect();
    m.write_hbm(0, &bytes).unwrap();
    let cast = one(
        "dma_memcpy src=hbm+0x0:[[4,4],[0,1]] src_elem_size=4 dst=hbm+0x100:[[2,4],[0,1]] \
         dst_elem_size=2 in_dtype=fp32 out_dtype=bf16",
        g,
    );
    m.step(&cast).unwrap();
    let out = m.read_hbm(0x100, 8).unwrap();
    let want: Vec<u8> = [0x3FC0u16, 0xC010, 0x7F62, 0x3DCD]
        .iter()
        .flat_map(|h| h.to_le_bytes())
        .collect();
    assert_eq!(out, want);
    let add = one(
        "dma_memcpy compute_op=add src=hbm+0x0:[[4,4],[0,1]] src_elem_size=4 \
         dst=hbm+0x0:[[4,4],[0,1]] dst_elem_size=4 in_dtype=fp32 out_dtype=fp32",
        g,
    );
    m.step(&add).unwrap();
    let twice: Vec<f32> = m
        .read_hbm(0, 16)
        .unwrap()
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(twice, xs.map(|x| x + x));
}

// §3.4 (no CCE): unequal byte counts fail validation; a DMA past HBM or a partition faults
// and changes nothing (decisions §3.9); reading unwritten HBM warns (decisions §5.2).
#[test]
fn memcpy_faults_and_warnings() {
    let g = Gen::Cayman;
    let mut m = Machine::new(Config {
        hbm_bytes: 1 << 16,
        ..Config::new(g)
    });
    let bad = one(
        "dma_memcpy src=hbm+0x0:[[4,4],[0,1]] src_elem_size=4 dst=hbm+0x100:[[4,3],[0,1]] \
         dst_elem_size=4 in_dtype=fp32 out_dtype=fp32",
        g,
    );
    assert!(matches!(
        m.step(&bad).unwrap_err().cause,
        FaultCause::Invalid { .. }
    ));
    let before = m.clone();
    let past = one(
        "dma_memcpy src=hbm+0xfff0:[[16,2],[0,1]] src_elem_size=16 dst=sbuf[p0]+0x0:[[262144,2],[0,1]] \
         dst_elem_size=16 in_dtype=uint8 out_dtype=uint8",
        g,
    );
    let f = m.step(&past).unwrap_err();
    assert!(
        matches!(f.cause, FaultCause::OutOfRange { operand: "src", .. }),
        "{f}"
    );
    assert_eq!(m, before);
    let row = one(
        "dma_memcpy src=hbm+0x0:[[16,1],[0,1]] src_elem_size=16 dst=sbuf[p0]+0x37ff8:[[16,1],[0,1]] \
         dst_elem_size=16 in_dtype=uint8 out_dtype=uint8",
        g,
    );
    let f = m.step(&row).unwrap_err();
    assert!(f.to_string().contains("active bytes"), "{f}");
    let ok = one(
        "dma_memcpy src=hbm+0x0:[[16,1],[0,1]] src_elem_size=16 dst=sbuf[p0]+0x0:[[16,1],[0,1]] \
         dst_elem_size=16 in_dtype=uint8 out_dtype=uint8",
        g,
    );
    let r = m.step(&ok).unwrap();
    assert_eq!(r.warnings.len(), 1);
    assert_eq!(r.warnings[0].kind, WarningKind::Uninitialised);
    let mut strict = Machine::new(Config {
        strict: true,
        ..Config::new(g)
    });
    assert!(matches!(
        strict.step(&ok).unwrap_err().cause,
        FaultCause::Strict(..)
    ));
}

// §3.14: TensorStore of immediates, TensorLoad into registers with sign extension.
#[test]
fn tensor_store_then_load() {
    let g = Gen::Sunda;
    let mut m = Machine::new(Config::new(g));
    let store = one(
        "tensor_store dtype=int16 src_datasrc=immediate num_elem_0=2 num_elem_1=1 \
         start_addr=sbuf[p1]+0x10 step_elem_0=1 step_elem_1=0 \
         data=feff070000000000000000000000000000000000000000000000000000000000",
        g,
    );
    m.step(&store).unwrap();
    let t = HostTensor::at(Space::Sbuf, 1..2)
        .offset(0x10)
        .elements(Dtype::INT16, 2);
    assert_eq!(m.read_tensor(&t).unwrap(), [0xFE, 0xFF, 7, 0]);
    let load = one(
        "tensor_load dtype=int16 src_datasrc=register num_elem_0=2 num_elem_1=1 \
         start_addr=sbuf[p1]+0x10 step_elem_0=1 step_elem_1=0 \
         data=0500000000000000000000000000000000000000000000000000000000000000",
        g,
    );
    m.step(&load).unwrap();
    assert_eq!(m.registers()[5], (-2i32) as u32);
    assert_eq!(m.registers()[6], 7);
    // A register store writes the low bits.
    m.set_register(9, 0x1234_5678).unwrap();
    let st = one(
        "tensor_store dtype=uint8 src_datasrc=register num_elem_0=1 num_elem_1=1 \
         start_addr=hbm+0x3 step_elem_0=1 step_elem_1=0 \
         data=0900000000000000000000000000000000000000000000000000000000000000",
        g,
    );
    m.step(&st).unwrap();
    assert_eq!(m.read_hbm(3, 1).unwrap(), [0x78]);
    // §3.14: TensorLoad forces REGISTER.
    let mut bad = load;
    if let Body::Mem2d(s) = &mut bad.body {
        s.src_datasrc = tpb_isa::DataSrc::IMMEDIATE;
    }
    assert!(matches!(
        m.step(&bad).unwrap_err().cause,
        FaultCause::Invalid { .. }
    ));
}

// The refused opcodes name the missing fact (issue 18: "refuse … naming the missing fact").
#[test]
fn refused_dma_opcodes_name_the_missing_fact() {
    let g = Gen::Cayman;
    let mut m = Machine::new(Config::new(g));
    for (op, fact) in [
        (Opcode::DMA_INDIRECT, "repeated scatter"),
        (Opcode::DMA_TRANSPOSE, "tile order"),
        (Opcode::PSEUDO_DMA_DIRECT2D, "host-only"),
    ] {
        let mut i = Instruction::new(op, g);
        if let Body::DmaIndirect1d(s) = &mut i.body {
            s.idx_num_active_channels = 128;
        }
        let f = m.execute_at(0, &i).unwrap_err();
        assert!(
            f.to_string().contains(fact) || matches!(f.cause, FaultCause::Invalid { .. }),
            "{f}"
        );
    }
    // A valid pseudo is refused as host-only, not as invalid.
    let p = one(
        "pseudo_dma_direct2d dge_op=direct2d src=hbm+0x0:[[4,1],[0,1]] src_elem_size=4 \
         dst=hbm+0x10:[[4,1],[0,1]] dst_elem_size=4 in_dtype=fp32 out_dtype=fp32",
        g,
    );
    assert!(m.step(&p).unwrap_err().to_string().contains("host-only"));
}

// §3.2 register form: reg_hi << 32 | reg_lo (assumption `dma-register-address`).
#[test]
fn memcpy_register_addresses() {
    let g = Gen::Cayman;
    let mut m = Machine::new(Config::new(g));
    m.write_hbm(0x40, &[1, 2, 3, 4]).unwrap();
    m.set_register(2, 0x40).unwrap();
    m.set_register(3, 0).unwrap();
    let mut i = Instruction::new(Opcode::DMA_MEMCPY, g);
    i.body = Body::DmaDirect2d(DmaDirect2d {
        src: DmaPattern {
            addr: Addr8::register(2, 3),
            step_elem: [4, 0],
            num_elem: [1, 1],
        },
        src_elem_size: 4,
        dst: DmaPattern {
            addr: Addr8::hbm(0x80).unwrap(),
            step_elem: [4, 0],
            num_elem: [1, 1],
        },
        dst_elem_size: 4,
        in_dtype: Dtype::UINT8,
        out_dtype: Dtype::UINT8,
        ..Default::default()
    });
    m.step(&i).unwrap();
    assert_eq!(m.read_hbm(0x80, 4).unwrap(), [1, 2, 3, 4]);
}

// A DMA walking more elements than the simulator's plan limit is refused, nothing changed.
#[test]
fn memcpy_element_limit() {
    let g = Gen::Cayman;
    let mut m = Machine::new(Config::new(g));
    let big = one(
        "dma_memcpy src=hbm+0x0:[[1,4096],[4096,2048]] src_elem_size=1 \
         dst=hbm+0x0:[[1,4096],[4096,2048]] dst_elem_size=1 in_dtype=uint8 out_dtype=uint8",
        g,
    );
    let before = m.clone();
    let f = m.step(&big).unwrap_err();
    assert!(f.to_string().contains("simulator's limit"), "{f}");
    assert_eq!(m, before);
}
