//! One passing and one failing case per DMA / MEM_2D validator clause
//! (isa-facts-pe-act-dma §3.3–§3.11, §3.14). Each baseline assembles from its
//! `docs/syntax.md` example and is valid; each case mutates one field and names the rule.

use tpb_isa::text::{asm, AsmOptions};
use tpb_isa::validate::{rule_walk, validate};
use tpb_isa::wire::*;
use tpb_isa::*;

fn one(src: &str, gen: Gen) -> Instruction {
    asm(src, &AsmOptions::new(gen)).unwrap().insts()[0]
}

/// Asserts `inst` is valid, then that `mutate` makes exactly the rule `rule` fail.
fn case(base: Instruction, gen: Gen, rule: &str, mutate: impl FnOnce(&mut Instruction)) {
    let r = validate(&base, gen);
    assert!(
        r.is_valid(),
        "baseline invalid: {:?}",
        r.failures().collect::<Vec<_>>()
    );
    // The rule is in the walk and passes on the baseline.
    assert!(
        rule_walk(&base, gen)
            .findings
            .iter()
            .any(|f| f.rule.name == rule && f.passed),
        "{rule} not checked on the baseline"
    );
    let mut bad = base;
    mutate(&mut bad);
    let r = validate(&bad, gen);
    let failed: Vec<&str> = r.failures().map(|f| f.rule.name).collect();
    assert!(failed.contains(&rule), "{rule} did not fail: {failed:?}");
}

const MEMCPY: &str = "dma_memcpy semaphore=5 sem_increment=1 src=hbm+0x0:[[512,128],[0,1]] \
    src_elem_size=512 dst=sbuf[p0]+0x0:[[262144,128],[0,1]] dst_elem_size=512 in_dtype=fp32 \
    out_dtype=fp32";

fn memcpy(gen: Gen) -> Instruction {
    one(MEMCPY, gen)
}

fn with_memcpy(i: &mut Instruction, f: impl FnOnce(&mut DmaDirect2d)) {
    if let Body::DmaDirect2d(s) = &mut i.body {
        f(s)
    }
}

// §3.2 is_valid_addr8, §3.4 zero_num_step_elem_shape_reg_mode.
#[test]
fn memcpy_addresses() {
    for g in Gen::ALL {
        case(memcpy(g), g, "is_valid_addr8", |i| {
            with_memcpy(i, |s| s.src.addr = Addr8(0x01 << 56))
        });
        case(memcpy(g), g, "is_valid_addr8", |i| {
            with_memcpy(i, |s| s.dst.addr = Addr8::register(64, 0))
        });
        case(memcpy(g), g, "zero_num_step_elem_shape_reg_mode", |i| {
            with_memcpy(i, |s| s.src.addr = Addr8(0x40 << 56))
        });
    }
    // A register pair is a valid address; a shape-register form with zero counts passes the
    // clause but reports the unknown shape-register-number clause as a lint.
    let mut i = memcpy(Gen::Cayman);
    with_memcpy(&mut i, |s| {
        s.src.addr = Addr8::register(1, 2);
    });
    assert!(validate(&i, Gen::Cayman).is_valid());
    with_memcpy(&mut i, |s| {
        s.src.addr = Addr8(0x40 << 56);
        s.src.num_elem = [0, 0];
        s.src.step_elem = [512, 0];
    });
    let r = validate(&i, Gen::Cayman);
    assert!(r.is_valid());
    assert!(r.lints().any(|f| f.rule.name == "is_valid_dge_shape_reg"));
}

// §3.3 has_valid_bound_check_reg, is_valid_dge_compute_op, is_valid_dma_configs;
// §3.4/§3.5 are_valid_memcpy_dtypes.
#[test]
fn memcpy_sub_fields() {
    let g = Gen::Mariana;
    case(memcpy(g), g, "has_valid_bound_check_reg", |i| {
        with_memcpy(i, |s| s.src_bound_reg = 0x05)
    });
    case(memcpy(g), g, "has_valid_bound_check_reg", |i| {
        with_memcpy(i, |s| s.dst_bound_reg = 0x80 | 63)
    });
    let mut ok = memcpy(g);
    with_memcpy(&mut ok, |s| s.dst_bound_reg = 0x80 | 62);
    assert!(validate(&ok, g).is_valid());
    case(memcpy(g), g, "is_valid_dge_compute_op", |i| {
        with_memcpy(i, |s| s.compute_op = DgeComputeOp(5))
    });
    case(memcpy(g), g, "is_valid_dma_configs", |i| {
        with_memcpy(i, |s| s.dma_configs = 5)
    });
    case(memcpy(g), g, "is_valid_dma_configs", |i| {
        with_memcpy(i, |s| s.dma_configs = 0x08)
    });
    case(memcpy(g), g, "are_valid_memcpy_dtypes", |i| {
        with_memcpy(i, |s| {
            s.in_dtype = Dtype::FP32R;
            s.out_dtype = Dtype::FP32R
        })
    });
}

// §3.4 without CCE: equal byte counts; with CCE: alignment and equal value counts.
#[test]
fn memcpy_byte_counts_and_cce() {
    let g = Gen::Cayman;
    case(memcpy(g), g, "dma_memcpy_no_cce", |i| {
        with_memcpy(i, |s| s.dst_elem_size = 256)
    });
    let cast = one(
        "dma_memcpy src=hbm+0x0:[[4,4],[0,1]] src_elem_size=4 dst=hbm+0x100:[[2,4],[0,1]] \
         dst_elem_size=2 in_dtype=fp32 out_dtype=bf16",
        g,
    );
    case(cast, g, "dma_memcpy_cce_aligned", |i| {
        with_memcpy(i, |s| s.src.addr = Addr8(2))
    });
    case(cast, g, "dma_memcpy_cce_counts", |i| {
        with_memcpy(i, |s| s.dst.num_elem = [3, 1])
    });
}

// §3.14 MEM_2D.
#[test]
fn mem2d_clauses() {
    let g = Gen::Sunda;
    let store = one(
        "tensor_store dtype=uint32 src_datasrc=immediate num_elem_0=2 num_elem_1=1 \
         start_addr=sbuf[p0]+0x40 step_elem_0=1 step_elem_1=0",
        g,
    );
    let with = |i: &mut Instruction, f: &dyn Fn(&mut Mem2d)| {
        if let Body::Mem2d(s) = &mut i.body {
            f(s)
        }
    };
    case(store, g, "is_valid_mem2d_dtype", |i| {
        with(i, &|s| s.dtype = Dtype::BFLOAT16)
    });
    case(store, g, "mem2d_num_elem", |i| {
        with(i, &|s| s.num_elem_1 = 0)
    });
    case(store, g, "mem2d_num_elem", |i| {
        with(i, &|s| {
            s.num_elem_0 = 8;
            s.num_elem_1 = 5
        })
    });
    case(store, g, "tensor_store_imm_capacity", |i| {
        with(i, &|s| s.num_elem_0 = 9)
    });
    case(store, g, "mem2d_addr_aligned", |i| {
        with(i, &|s| s.start_addr = Addr8(s.start_addr.0 + 2))
    });
    case(store, g, "mem2d_addr_aligned", |i| {
        with(i, &|s| {
            s.start_addr = Addr8((16 << 20) - 4);
            s.step_elem_0 = 1
        })
    });
    let load = one(
        "tensor_load dtype=uint64 src_datasrc=register num_elem_0=4 num_elem_1=1 \
         start_addr=hbm+0x100 step_elem_0=1 step_elem_1=0",
        g,
    );
    case(load, g, "tensor_load_datasrc", |i| {
        with(i, &|s| s.src_datasrc = DataSrc::IMMEDIATE)
    });
    case(load, g, "mem2d_register_range", |i| {
        with(i, &|s| s.data.0[0] = 60)
    });
}

// §3.7 INDIRECT1D, §3.8 XPOSE, §3.9 GATHER_XPOSE.
#[test]
fn indirect_and_transpose_clauses() {
    let g = Gen::Cayman;
    let ind = one(
        "dma_indirect semaphore=1 sem_increment=1 idx_num_active_channels=128 flags=0 \
         src=hbm+0x0:[[256,64]] src_elem_size=256 dst=sbuf[p0]+0x0:[[262144,64]] \
         dst_elem_size=256 src_idx=sbuf[p0]+0x1000 in_dtype=bf16 out_dtype=bf16",
        g,
    );
    let with_i = |i: &mut Instruction, f: &dyn Fn(&mut DmaIndirect1d)| {
        if let Body::DmaIndirect1d(s) = &mut i.body {
            f(s)
        }
    };
    case(ind, g, "check_dma_indirect_indices", |i| {
        with_i(i, &|s| s.idx_num_active_channels = 64)
    });
    case(ind, g, "dma_indirect_flags", |i| {
        with_i(i, &|s| s.flags = 3)
    });
    case(ind, g, "dma_index_array", |i| {
        with_i(i, &|s| {
            s.src_idx = Addr4::at(g, tpb_isa::geometry::Space::Sbuf, 1, 0).unwrap()
        })
    });
    case(ind, g, "has_valid_idx_bound_check_reg", |i| {
        with_i(i, &|s| s.src_idx_bound_reg = 0x80 | 0x40 | 3)
    });
    case(ind, g, "dma_reserved_zero", |i| {
        with_i(i, &|s| s.reserved.0[1] = 1)
    });

    let xp = one(
        "dma_transpose in_dtype=bf16 out_dtype=bf16 src=hbm+0x0:[[2,128],[256,16]] \
         tile_src_row_step=256 dst=sbuf[p0]+0x0:[[262144,128],[32,16]] tile_src_rows=16 \
         tile_src_cols=128 semaphore=2",
        g,
    );
    let with_x = |i: &mut Instruction, f: &dyn Fn(&mut DmaDirect2dXpose)| {
        if let Body::DmaDirect2dXpose(s) = &mut i.body {
            f(s)
        }
    };
    case(xp, g, "dma_xpose_no_cast", |i| {
        with_x(i, &|s| s.out_dtype = Dtype::FP16)
    });
    case(xp, g, "dma_xpose_dtype_size", |i| {
        with_x(i, &|s| {
            s.in_dtype = Dtype::UINT8;
            s.out_dtype = Dtype::UINT8
        })
    });
    case(xp, g, "dma_xpose_dst", |i| {
        with_x(i, &|s| s.dst.addr = Addr8(0x40))
    });
    case(xp, g, "dma_xpose_dst", |i| {
        with_x(i, &|s| s.dst.step_elem[1] = 16)
    });
    case(xp, g, "dma_xpose_tile", |i| {
        with_x(i, &|s| s.tile_src_rows = 8)
    });
    case(xp, g, "dma_xpose_tile", |i| {
        with_x(i, &|s| {
            s.in_dtype = Dtype::FP32;
            s.out_dtype = Dtype::FP32
        })
    });
    // §3.8: cayman+ only.
    assert!(Opcode::DMA_TRANSPOSE.info(Gen::Sunda).is_none());

    let gx = one(
        "dma_gather_transpose semaphore=3 idx_nac=128 src=hbm+0x0:[[2,128],[256,16]] \
         src_idx=sbuf[p0]+0x1000 dst=sbuf[p0]+0x0 dst_step_elem_1=262144 dst_num_elem_0=16 \
         dst_num_elem_1=1 elem_size=256 dtype=bf16->bf16 flags=1",
        g,
    );
    let with_g = |i: &mut Instruction, f: &dyn Fn(&mut DmaGatherXpose)| {
        if let Body::DmaGatherXpose(s) = &mut i.body {
            f(s)
        }
    };
    case(gx, g, "dma_gather_xpose_shape", |i| {
        with_g(i, &|s| s.src.num_elem[1] = 8)
    });
    case(gx, g, "dma_gather_xpose_shape", |i| {
        with_g(i, &|s| s.elem_size = 257)
    });
    case(gx, g, "dma_gather_dim", |i| with_g(i, &|s| s.flags = 0));
    case(gx, g, "dma_xpose_dtype_size", |i| {
        with_g(i, &|s| s.dtype = DtypePair::new(Dtype::FP32, Dtype::FP32))
    });
    case(gx, g, "check_dma_indirect_indices", |i| {
        with_g(i, &|s| s.idx_nac = 1)
    });
}

// §3.6 pseudo ops and §3.10/§3.11 maverick structs.
#[test]
fn pseudo_and_maverick_clauses() {
    let g = Gen::Cayman;
    let p = one(
        "pseudo_dma_direct2d dge_op=direct2d src=hbm+0x0:[[4,1],[0,1]] src_elem_size=4 \
         dst=hbm+0x10:[[4,1],[0,1]] dst_elem_size=4 in_dtype=fp32 out_dtype=fp32",
        g,
    );
    case(p, g, "is_valid_dge_opcode", |i| {
        if let Body::PseudoDmaDirect2d(s) = &mut i.body {
            s.dge_op = DgeOpcode(4)
        }
    });
    // Sunda has only direct2d / indirect1d.
    let mut t = one(
        "pseudo_dma_direct2d dge_op=direct2d src=hbm+0x0:[[4,1],[0,1]] src_elem_size=4 \
         dst=hbm+0x10:[[4,1],[0,1]] dst_elem_size=4 in_dtype=fp32 out_dtype=fp32",
        Gen::Sunda,
    );
    if let Body::PseudoDmaDirect2d(s) = &mut t.body {
        s.dge_op = DgeOpcode::TRANSPOSE
    }
    assert!(validate(&t, Gen::Sunda)
        .failures()
        .any(|f| f.rule.name == "is_valid_dge_opcode"));
    let e = one("pseudo_extension tile_src_rows=16 tile_src_cols=128", g);
    case(e, g, "pseudo_ext_tile_shape", |i| {
        if let Body::PseudoDmaExt(s) = &mut i.body {
            s.tile_src_cols = 64
        }
    });
    let m = Gen::Maverick;
    let c = one(
        "dma_memcpy2 addr_mode=0x00 sema_update_mode=0x10 src_addr=0x1000 src_num_elem_0=4 \
         dst_addr=0x2000 dst_num_elem_0=4",
        m,
    );
    case(c, m, "is_valid_dma_addr_mode", |i| {
        if let Body::DmaCopy2d(s) = &mut i.body {
            s.addr_mode = 0xC0
        }
    });
    case(c, m, "is_valid_dma_sema_update_mode", |i| {
        if let Body::DmaCopy2d(s) = &mut i.body {
            s.sema_update_mode = 0x20
        }
    });
    // COPY2D's own wait band at 4..12 is not read as EVENTS.
    let mut w = c;
    w.events.wait_mode = WaitMode(0x77);
    assert!(validate(&w, m).is_valid());
    let d = one("dma_immediate descriptor_flags=0x01", m);
    case(d, m, "dma_immediate_descriptor_flags", |i| {
        if let Body::DmaImmediate(s) = &mut i.body {
            s.descriptor_flags = 0x80
        }
    });
}
