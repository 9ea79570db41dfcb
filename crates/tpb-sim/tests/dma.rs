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

// Issue 29 item 5: an HBM region past the configured HBM is refused naming that HBM's size,
// also when its byte count passes 2^64 (it was "outside the 0x0-byte HBM"); the generation-only
// check, which knows no HBM, names none (decisions §6.4: HBM is bounded by Config::hbm_bytes).
#[test]
fn oversized_hbm_regions_name_the_configured_size() {
    use tpb_sim::region::{RegionData, RegionSpec};
    let mut m = Machine::new(Config {
        hbm_bytes: 1 << 20,
        ..Config::new(Gen::Cayman)
    });
    let before = m.clone();
    for region in [
        // 2^61 × 4 fp32: 2^65 bytes.
        "hbm+0x0:fp32:2305843009213693952x4",
        // Start plus 2^63 bytes passes 2^64.
        "hbm+0x10:fp32:2305843009213693952",
        // 16 GiB in a 1 MiB HBM.
        "hbm+0x10:fp32:4294967296",
    ] {
        let spec = RegionSpec::parse(region).unwrap();
        let err = m.read_region(&spec).unwrap_err().to_string();
        assert!(
            err.contains("outside the 0x100000-byte HBM"),
            "{region}: {err}"
        );
        assert!(!err.contains("0x0-byte"), "{region}: {err}");
        let err = m
            .resolve_region(&spec.bind().unwrap())
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("outside the 0x100000-byte HBM"),
            "{region}: {err}"
        );
    }
    let t = HostTensor::hbm(0).elements(Dtype::FP32, 1 << 62);
    let err = m.read_tensor(&t).unwrap_err().to_string();
    assert_eq!(
        err,
        "hbm bytes from 0x0 end past 2^64, outside the 0x100000-byte HBM \
         (Config::hbm_bytes, `tpb run --hbm-bytes`)"
    );
    let err = t.check(Gen::Cayman).unwrap_err().to_string();
    assert_eq!(err, "hbm bytes from 0x0 end past 2^64, more than any HBM");
    // A write is refused the same way and changes nothing; a region that fits still works.
    let data = RegionData {
        dtype: Dtype::FP32,
        shape: vec![1],
        bytes: vec![0; 4],
    };
    let past = RegionSpec::parse("hbm+0x100000").unwrap();
    let err = m.write_region(&past, &data).unwrap_err().to_string();
    assert!(err.contains("outside the 0x100000-byte HBM"), "{err}");
    assert_eq!(m, before);
    m.write_region(&RegionSpec::parse("hbm+0xffffc").unwrap(), &data)
        .unwrap();
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

// §3.4 walk (tpb's DMA map, assumption `dma-byte-steps`): an element that leaves its
// address window, one that walks from SBUF into PSUM, and an address in neither space are
// each refused before anything is written, naming the operand and why.
#[test]
fn memcpy_walks_refused_with_their_reason() {
    let g = Gen::Cayman;
    let copy = |src: (Addr8, i32), dst: (Addr8, i32)| {
        let mut i = Instruction::new(Opcode::DMA_MEMCPY, g);
        i.body = Body::DmaDirect2d(DmaDirect2d {
            src: DmaPattern {
                addr: src.0,
                step_elem: [src.1, 0],
                num_elem: [2, 1],
            },
            src_elem_size: 16,
            dst: DmaPattern {
                addr: dst.0,
                step_elem: [dst.1, 0],
                num_elem: [2, 1],
            },
            dst_elem_size: 16,
            in_dtype: Dtype::UINT8,
            out_dtype: Dtype::UINT8,
            ..Default::default()
        });
        i
    };
    let hbm = Addr8::hbm(0x40).unwrap();
    let last_sbuf = Addr8::on_chip(g, Space::Sbuf, 127, 0).unwrap();
    let first_sbuf = Addr8::on_chip(g, Space::Sbuf, 0, 0).unwrap();
    let last_psum = Addr8::on_chip(g, Space::Psum, 127, 0).unwrap();
    // Partition strides on cayman: PSUM's last partition is followed by no space at all.
    let (sbuf_stride, psum_stride) = (256 << 10, 32 << 10);
    for (inst, operand, why) in [
        (
            copy((hbm, -0x80), (first_sbuf, 16)),
            "src",
            "leaves its address window",
        ),
        (
            copy((hbm, 16), (last_sbuf, sbuf_stride)),
            "dst",
            "stays in the space it starts in",
        ),
        (
            copy((hbm, 16), (last_psum, psum_stride)),
            "dst",
            "neither HBM nor SBUF/PSUM",
        ),
    ] {
        let mut m = Machine::new(Config::new(g));
        m.write_hbm(0, &[7; 0x100]).unwrap();
        let before = m.clone();
        let f = m.step(&inst).unwrap_err();
        assert!(
            matches!(&f.cause, FaultCause::OutOfRange { operand: o, detail } if *o == operand && detail.contains(why)),
            "{why}: {f}"
        );
        assert!(m == before, "{why}: the machine changed");
    }
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

// Issue 29 item 10; assumption `dma-byte-steps` (isa-facts-pe-act-dma §3.2, §8 Q20: the DMA
// map is tpb's; no fact says a walk past SBUF's last partition reaches PSUM): a pattern of
// 129 partition steps from SBUF partition 0 faults, naming both spaces, and changes
// nothing; 128 steps run. The same from PSUM backwards into SBUF.
#[test]
fn a_walk_stays_in_the_space_it_starts_in() {
    let g = Gen::Cayman;
    let mut m = Machine::new(Config::new(g));
    m.write_hbm(0, &[5; 129 * 4]).unwrap();
    let to_sbuf = |rows: u32| {
        one(
            &format!(
                "dma_memcpy src=hbm+0x0:[[4,{rows}],[0,1]] src_elem_size=4 \
                 dst=sbuf[p0]+0x0:[[262144,{rows}],[0,1]] dst_elem_size=4 in_dtype=uint8 \
                 out_dtype=uint8"
            ),
            g,
        )
    };
    let before = m.clone();
    let f = m.step(&to_sbuf(129)).unwrap_err();
    let text = f.to_string();
    assert!(
        matches!(f.cause, FaultCause::OutOfRange { operand: "dst", .. }),
        "{f}"
    );
    assert!(
        text.contains("sbuf[p0]+0x0") && text.contains("psum[p0]+0x0"),
        "{text}"
    );
    assert_eq!(m, before);
    let psum = HostTensor::at(Space::Psum, 0..1).elements(Dtype::UINT8, 4);
    assert_eq!(m.uninitialised_bytes(&psum), Ok(4));
    let r = m.step(&to_sbuf(128)).unwrap();
    assert_eq!(r.written.unwrap().partitions, 0..128);
    // From PSUM partition 0 one partition back: SBUF's last partition.
    let back = one(
        "dma_memcpy src=hbm+0x0:[[4,2],[0,1]] src_elem_size=4 \
         dst=psum[p0]+0x0:[[-262144,2],[0,1]] dst_elem_size=4 in_dtype=uint8 out_dtype=uint8",
        g,
    );
    let f = m.step(&back).unwrap_err();
    assert!(f.to_string().contains("psum[p0]+0x0"), "{f}");
}

// Issue 29 item 9: the host memory HBM holds is bounded per element written (1 KiB blocks)
// and by Config::max_hbm_held_bytes: a DMA scattering 4-byte elements at 16 KiB / 32 MiB
// steps over a 64 GiB HBM is refused before it runs (nothing written, nothing allocated);
// half of it fits and holds 1280 bytes per element; a host write past the limit is refused.
#[test]
fn scattered_hbm_writes_are_bounded() {
    let g = Gen::Cayman;
    let cfg = Config {
        hbm_bytes: 1 << 36,
        max_hbm_held_bytes: 8 << 20,
        ..Config::new(g)
    };
    let mut m = Machine::new(cfg);
    let src = HostTensor::at(Space::Sbuf, 0..128).elements(Dtype::UINT8, 4096);
    m.write_tensor(&src, &vec![9; 128 * 4096]).unwrap();
    let scatter = |n0: u32, n1: u32| {
        one(
            &format!(
                "dma_memcpy src=sbuf[p0]+0x0:[[4,{n0}],[262144,{n1}]] src_elem_size=4 \
                 dst=hbm+0x0:[[16384,{n0}],[33554432,{n1}]] dst_elem_size=4 in_dtype=uint8 \
                 out_dtype=uint8"
            ),
            g,
        )
    };
    let before = m.clone();
    // 8192 elements, each in a block of its own (four to a page): 10 MiB, past 8 MiB.
    let f = m.step(&scatter(64, 128)).unwrap_err();
    assert!(
        matches!(f.cause, FaultCause::HbmPages { operand: "dst", limit, .. } if limit == 8 << 20),
        "{f}"
    );
    assert!(f.to_string().contains("max_hbm_held_bytes"), "{f}");
    assert_eq!(m, before);
    assert_eq!(m.hbm_allocated(), 0);
    // 4096 elements fit: a 1152-byte block each and a quarter of a 512-byte page table.
    m.step(&scatter(32, 128)).unwrap();
    assert_eq!(m.hbm_allocated(), 4096 * (1152 + 512 / 4));
    // A host write of 8 MiB more is refused, naming the limit; nothing changes.
    let before = m.clone();
    let e = m.write_hbm(1 << 30, &vec![1; 8 << 20]).unwrap_err();
    assert!(e.to_string().contains("max_hbm_held_bytes"), "{e}");
    assert_eq!(m, before);
}

// Issue 29 item 8: a host read of more than MAX_HOST_TRANSFER_BYTES is refused with an
// error (never an allocation failure); read in pieces, any size streams.
#[test]
fn huge_host_reads_are_refused_or_streamed() {
    let mut m = Machine::new(Config {
        hbm_bytes: 1 << 36,
        ..Config::new(Gen::Cayman)
    });
    m.write_hbm((1 << 35) + 3, &[7]).unwrap();
    let t = HostTensor::hbm(0).elements(Dtype::FP32, 1 << 34);
    let e = m.read_tensor(&t).unwrap_err();
    assert!(
        matches!(e, tpb_sim::HostError::TooLarge { bytes, .. } if bytes == 1 << 36),
        "{e}"
    );
    // 64 GiB in pieces of at most READ_PIECE_BYTES: counted and checked, never held.
    let (mut total, mut sevens, mut largest) = (0u64, 0u64, 0usize);
    let small = HostTensor::hbm(1 << 35).elements(Dtype::UINT8, 8 << 20);
    m.read_tensor_pieces::<tpb_sim::HostError>(&small, |p| {
        total += p.len() as u64;
        sevens += p.iter().filter(|&&b| b == 7).count() as u64;
        largest = largest.max(p.len());
        Ok(())
    })
    .unwrap();
    assert_eq!((total, sevens), (8 << 20, 1));
    assert_eq!(largest as u64, tpb_sim::READ_PIECE_BYTES);
    assert_eq!(m.uninitialised_bytes(&t), Ok((1 << 36) - 1));
}

// decisions §6.4: placing a tensor (held in one piece, docs/library.md) and taking tensors
// out of a consumed machine check their tensors like every host access: past the configured
// HBM is refused naming its size, changing nothing; an on-chip tensor is never placed, and
// is read when taken; a placed tensor gives back exactly the bytes written, the rest zero.
#[test]
fn placing_and_taking_tensors_check_their_tensors() {
    let mut m = Machine::new(Config {
        hbm_bytes: 1 << 20,
        ..Config::new(Gen::Cayman)
    });
    let before = m.clone();
    let past = HostTensor::hbm((1 << 20) - 64).elements(Dtype::UINT8, 1 << 15);
    let err = m.place_tensor(&past).unwrap_err();
    assert!(
        err.to_string().contains("outside the 0x100000-byte HBM"),
        "{err}"
    );
    assert_eq!(m, before);
    let sbuf = HostTensor::at(Space::Sbuf, 0..2).elements(Dtype::FP32, 4);
    assert_eq!(m.place_tensor(&sbuf), Ok(false));
    let small = HostTensor::hbm(0).elements(Dtype::UINT8, 64);
    assert_eq!(m.place_tensor(&small), Ok(false), "below SEGMENT_MIN");
    let big = HostTensor::hbm(1 << 16).elements(Dtype::UINT8, tpb_sim::SEGMENT_MIN);
    assert_eq!(m.place_tensor(&big), Ok(true));
    m.write_hbm((1 << 16) + 3, &[7, 8]).unwrap();
    m.write_tensor(&sbuf, &[1; 32]).unwrap();
    let mut want = vec![0u8; tpb_sim::SEGMENT_MIN as usize];
    want[3..5].copy_from_slice(&[7, 8]);
    let got = m.clone().into_tensors(&[big, sbuf]).unwrap();
    assert_eq!(got, vec![want, vec![1; 32]]);
    assert!(m.into_tensors(&[big, past]).is_err());
}
