//! The zero-copy view agrees with the owned decode (decisions §1.1; issue 11): on any 64
//! bytes and every generation, the view classifies the opcode as `Instruction::decode` does
//! and each accessor reads the value the owned struct holds.

use proptest::prelude::*;
use tpb_isa::wire::{BodyView, InstView, S3d3Ts};
use tpb_isa::{Gen, Instruction};

#[path = "support/bundles.rs"]
mod bundles;
use bundles::bundle;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4096))]
    #[test]
    fn view_agrees_with_owned_decode(b in bundle()) {
        for g in Gen::ALL {
            let owned = Instruction::decode(&b, g);
            let v = InstView::new(&b, g);
            // `owned()` is built from the accessors, field by field.
            prop_assert_eq!(v.owned(), owned);
            prop_assert_eq!(v.header().owned(), owned.header);
            prop_assert_eq!(v.events().owned(), owned.events);
            prop_assert_eq!(v.body().owned(), owned.body);
            prop_assert_eq!(v.kind(), owned.body.kind());
            prop_assert_eq!(v.info(), owned.info(g));
            prop_assert_eq!(v.opcode(), owned.opcode());
            prop_assert_eq!(v.bytes(), &b);
        }
    }
}

#[test]
fn accessors_read_their_named_offsets() {
    // isa-facts §7: S3D3_TS op0 at byte 36, imm1 at 44..48, dst TENSOR3D at 48 (its
    // num_elem[0] at +10: seed 001 "The byte map").
    let mut b = [0u8; 64];
    b[0] = 0x43;
    b[36] = 0x06;
    b[44..48].copy_from_slice(&0x3F80_0000u32.to_le_bytes());
    b[48..52].copy_from_slice(&0x1000u32.to_le_bytes());
    b[58..60].copy_from_slice(&512u16.to_le_bytes());
    let s = S3d3Ts::view(&b);
    assert_eq!(s.op0(), tpb_isa::AluOp::MULT);
    assert_eq!(s.imm1().0, 0x3F80_0000);
    assert_eq!(s.dst_mem_pattern().start_addr.0, 0x1000);
    assert_eq!(s.dst_mem_pattern().num_elem[0], 512);
    assert!(matches!(
        InstView::new(&b, Gen::Cayman).body(),
        BodyView::S3d3Ts(_)
    ));
    // decisions §1.6: 0x87 is a struct on sunda only.
    b[0] = 0x87;
    assert!(matches!(
        InstView::new(&b, Gen::Sunda).body(),
        BodyView::S4d4Tsm(_)
    ));
    assert!(matches!(
        InstView::new(&b, Gen::Cayman).body(),
        BodyView::Opaque(_)
    ));
}
