//! The fast disassembler against the plain one it replaced (issue 11 target 4): the same
//! text, byte for byte, on every generation, for random bundles and for compiler-like ones
//! with float immediates. The golden files (`text_golden.rs`, `text_docs.rs`) pin the text
//! itself; this pins the two implementations to each other.

#[path = "support/bundles.rs"]
mod bundles;
#[path = "support/templates.rs"]
mod templates;

use bundles::bundle;
use proptest::prelude::*;
use templates::TEMPLATES;
use tpb_isa::text::{asm_line, disasm, disasm_into, disasm_into_bytes, disasm_plain};
use tpb_isa::{Gen, Instruction};

/// Every way of printing a bundle gives the plain disassembler's line.
fn assert_same(b: &[u8; 64]) {
    for gen in Gen::ALL {
        let inst = Instruction::decode(b, gen);
        let plain = disasm_plain(&inst, gen);
        assert_eq!(disasm(&inst, gen), plain, "{gen}: {b:02x?}");
        let mut s = String::from("prefix ");
        disasm_into(&inst, gen, &mut s);
        assert_eq!(s.strip_prefix("prefix "), Some(plain.as_str()));
        let mut v = Vec::new();
        disasm_into_bytes(&inst, gen, &mut v);
        assert_eq!(v, plain.as_bytes());
    }
}

/// FP32 words: short dyadic values (the fast float path), any bits, and the specials.
fn float_word() -> impl Strategy<Value = u32> {
    prop_oneof![
        (0u32..1 << 24, -40i32..40, any::<bool>()).prop_map(|(m, k, neg)| {
            let v = m as f32 * 2f32.powi(k);
            (if neg { -v } else { v }).to_bits()
        }),
        (0u32..100_000, 0i32..8).prop_map(|(m, k)| (m as f32 / 10f32.powi(k)).to_bits()),
        any::<u32>(),
        prop::sample::select(vec![
            0u32,
            0x8000_0000,
            0x7F80_0000,
            0xFF80_0000,
            0x7FC0_0000,
            0xFF7F_FFFF,
            0x0000_0001,
            0x3F80_0000,
        ]),
    ]
}

/// Compiler-like bundles: a template, a semaphore value, float words where immediates,
/// bounds and fills live, and a channel count.
fn compiler_like() -> impl Strategy<Value = [u8; 64]> {
    (
        0..TEMPLATES.len(),
        any::<u32>(),
        prop::array::uniform4(float_word()),
        0u8..=128,
        any::<bool>(),
    )
        .prop_map(|(t, sem, floats, channels, set_channels)| {
            let mut b = asm_line(TEMPLATES[t], Gen::Cayman)
                .expect("template assembles")
                .encode();
            b[8..12].copy_from_slice(&sem.to_le_bytes());
            // S3d3Ts imm0/imm1 and S2d2Rs bound0/bound1 at 40..48; S2d2Rs base/fill at 16..24.
            for (w, at) in floats.iter().zip([40, 44, 16, 20]) {
                if at >= 40 || TEMPLATES[t].starts_with("range_select") {
                    b[at..at + 4].copy_from_slice(&w.to_le_bytes());
                }
            }
            if set_channels {
                let at = match TEMPLATES[t].split(' ').next() {
                    Some("affine_select" | "range_select") => 12,
                    Some("ts_select") => 33,
                    _ => 34,
                };
                b[at] = channels;
            }
            b
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4096))]

    #[test]
    fn fast_disasm_is_plain_disasm_on_random_bundles(b in bundle()) {
        assert_same(&b);
    }

    #[test]
    fn fast_disasm_is_plain_disasm_on_any_bytes(b in prop::array::uniform32(any::<u8>()), c in prop::array::uniform32(any::<u8>())) {
        let mut x = [0u8; 64];
        x[..32].copy_from_slice(&b);
        x[32..].copy_from_slice(&c);
        assert_same(&x);
    }

    #[test]
    fn fast_disasm_is_plain_disasm_on_compiler_like_bundles(b in compiler_like()) {
        assert_same(&b);
    }
}

#[test]
fn fast_disasm_is_plain_disasm_on_every_template() {
    for t in TEMPLATES {
        assert_same(&asm_line(t, Gen::Cayman).unwrap().encode());
    }
}
