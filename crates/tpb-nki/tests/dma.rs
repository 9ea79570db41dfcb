//! `dma_copy`, `nl.load` / `nl.store` on the NKI core (nki-api §3.6, §2.7;
//! isa-facts-pe-act-dma §3.4, §3.5): HBM tensors, the emitted DMAMEMCPY, its queue, and
//! a plain reference of the copy.

use tpb_isa::geometry::Space;
use tpb_isa::text::{asm, AsmOptions};
use tpb_isa::{AluOp, Body, Dtype, Gen, Opcode};
use tpb_nki::{Core, NkiError, Operand};
use tpb_sim::dma::{DmaPlace, DmaView};
use tpb_sim::engines::{place, EngineId};

fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn load_compute_store_round_trip() {
    let g = Gen::Cayman;
    let mut core = Core::new(g);
    let x = core.ndarray(&[4, 8], Dtype::FP32, Space::Hbm).unwrap();
    let y = core.ndarray(&[4, 8], Dtype::FP32, Space::Hbm).unwrap();
    assert_eq!(x.region(), format!("hbm+0x0:{}:4x8", Dtype::FP32));
    let xs: Vec<f32> = (0..32).map(|i| i as f32 * 0.5).collect();
    core.write(
        &x,
        &xs.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<_>>(),
    )
    .unwrap();
    let t = core.load(&x, None).unwrap();
    assert_eq!((t.space, t.shape.clone()), (Space::Sbuf, vec![4, 8]));
    let u = core.ndarray(&[4, 8], Dtype::FP32, Space::Sbuf).unwrap();
    core.tensor_scalar(
        &u,
        &t,
        AluOp::MULT,
        Some(&Operand::Imm(3.0)),
        false,
        None,
        None,
        false,
    )
    .unwrap();
    core.store(&y, &u).unwrap();
    let got = f32s(&core.read(&y).unwrap());
    assert_eq!(got, xs.iter().map(|v| v * 3.0).collect::<Vec<_>>());
    // Two DMA requests on SP, one DVE instruction.
    let p = core.program();
    assert_eq!(p[0].opcode(), Opcode::DMA_MEMCPY);
    assert_eq!(p[2].opcode(), Opcode::DMA_MEMCPY);
    let engines = place(p, g, &core.placements()).unwrap();
    assert_eq!(engines, [EngineId::Sp, EngineId::Dve, EngineId::Sp]);
    let text = core.disasm();
    // SP is the default issuer, so no `.engine` line is needed (placements name only
    // requests on another queue).
    assert!(!text.contains(".engine"), "{text}");
    // `.engine` lines are `tpb run` directives; the instructions assemble back.
    let code: String = text
        .lines()
        .filter(|l| !l.starts_with(".engine"))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(asm(&code, &AsmOptions::new(g)).unwrap().insts(), p);
}

// nki-api §3.6: dtype conversion through fp32; ACT/POOL queues; PE refused; PSUM source
// refused; unequal element counts refused.
#[test]
fn dma_copy_casts_and_checks_its_arguments() {
    let g = Gen::Cayman;
    let mut core = Core::new(g);
    let x = core.ndarray(&[2, 4], Dtype::FP32, Space::Hbm).unwrap();
    core.write(
        &x,
        &[1.5f32, -2.0, 0.25, 3.0e38, 0.0, 1.0, 2.0, 3.0]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect::<Vec<_>>(),
    )
    .unwrap();
    let b = core.ndarray(&[2, 4], Dtype::BFLOAT16, Space::Sbuf).unwrap();
    core.dma_copy(&b, &x, Some(EngineId::Act), Some(4)).unwrap();
    assert_eq!(core.machine().semaphores()[4], 1);
    let bits: Vec<u16> = core
        .read(&b)
        .unwrap()
        .chunks(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect();
    assert_eq!(&bits[..4], &[0x3FC0, 0xC000, 0x3E80, 0x7F62]);
    assert!(matches!(
        core.dma_copy(&b, &x, Some(EngineId::Pe), None),
        Err(NkiError::Value {
            argument: "engine",
            ..
        })
    ));
    let ps = core.ndarray(&[2, 4], Dtype::FP32, Space::Psum).unwrap();
    assert!(core.dma_copy(&x, &ps, None, None).is_err());
    let small = core.ndarray(&[2, 2], Dtype::FP32, Space::Sbuf).unwrap();
    let e = core.dma_copy(&small, &x, None, None).unwrap_err();
    assert!(e.to_string().contains("equal element counts"), "{e}");
    // A strided HBM view (NKI `.ap`): every other element of row 0.
    let v = DmaView::new(DmaPlace::Hbm(x.offset), Dtype::FP32, vec![[1, 1], [2, 2]]);
    let w = core.ndarray(&[1, 2], Dtype::FP32, Space::Sbuf).unwrap();
    core.dma_copy_view(&w.dma_view(), &v, None, None).unwrap();
    assert_eq!(f32s(&core.read(&w).unwrap()), [1.5, 0.25]);
    let last = core.program().last().unwrap();
    let Body::DmaDirect2d(s) = last.body else {
        panic!()
    };
    assert_eq!(
        (s.src_elem_size, s.src.step_elem[0], s.src.num_elem[0]),
        (4, 8, 2)
    );
}

// The HBM allocator is bounded by the machine's HBM.
#[test]
fn hbm_allocation_is_bounded() {
    let mut core = Core::with_config(tpb_sim::Config {
        hbm_bytes: 4096,
        ..tpb_sim::Config::new(Gen::Cayman)
    });
    core.ndarray(&[600], Dtype::FP32, Space::Hbm).unwrap();
    let e = core.ndarray(&[600], Dtype::FP32, Space::Hbm).unwrap_err();
    assert!(
        matches!(
            e,
            NkiError::OutOfMemory {
                space: Space::Hbm,
                ..
            }
        ),
        "{e}"
    );
}
