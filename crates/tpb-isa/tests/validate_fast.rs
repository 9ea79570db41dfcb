//! Differential test of the fast verdict (`is_valid_view`, read through the zero-copy view)
//! against the reference chains (`validate`, every finding): the same verdict on random
//! bundles, on valid bundles of every modelled opcode, and on valid bundles with bytes
//! mutated, for all four generations (issue 11).

use proptest::prelude::*;
use tpb_isa::validate::{is_valid, is_valid_view, validate};
use tpb_isa::wire::InstView;
use tpb_isa::{Gen, Instruction};

#[path = "support/bundles.rs"]
mod bundles;
#[path = "support/templates.rs"]
mod templates;

/// With the decode bench's compiler-like lines (`templates::TEMPLATES`), one valid line for
/// every other modelled opcode and the narrow bitvec widths (docs/syntax.md examples).
const MORE: &[&str] = &[
    "ts_bitvec src=sbuf[p0..128]+0x0:[[1,256]] in=uint16 out=uint16 op0=and imm0=0xff op1=bypass dst=sbuf[p0..128]+0x400:[[1,256]]",
    "ts_bitvec src=sbuf[p0..128]+0x0:[[1,256]] in=int8 out=int8 op0=or imm0=0x1 op1=bypass dst=sbuf[p0..128]+0x400:[[1,256]]",
    "ts_ptr_bitvec src=sbuf[p0..128]+0x0:[[1,256]] in=uint16 out=uint16 imm0=0x8000 op0=xor op1=bypass dst=sbuf[p0..128]+0x400:[[1,256]]",
    "imm_ld_bitvec src=sbuf[p0..128]+0x8000:[[1,2]] dtype=uint32",
    "bn_param_load src=sbuf[p0..128]+0x8000:[[1,3]] dtype=fp32 imm1=0x43000000",
    "match_value_load src=sbuf[p0..128]+0x8000:[[1,8]] dtype=fp32",
    "ptr_multi_dual_arith src=sbuf[p0..128]+0x0:[[1,64],[1,1],[1,1],[64,4]] in=fp32 out=fp32 op=mult op_dim=xyz dst=sbuf[p0..128]+0x1000:[[1,64],[1,1],[1,1],[64,4]]",
    "ptr_multi_dual_bitvec src=sbuf[p0..128]+0x0:[[1,64],[1,1],[1,1],[64,4]] in=uint32 out=uint32 op=and op_dim=xyz dst=sbuf[p0..128]+0x1000:[[1,64],[1,1],[1,1],[64,4]]",
    "event_semaphore wait_mode=sem_ge_imm wait_idx=1 semaphore_value=0 wait1_mode=sem_ge_imm wait1_idx=2 wait1_value=0 update1_mode=sem_add_imm_complete update1_idx=3 update1_value=5",
];

fn lines() -> impl Iterator<Item = &'static str> {
    templates::TEMPLATES.iter().chain(MORE).copied()
}

/// Every template that assembles, with the generation it was assembled for (sunda-only and
/// cayman-up opcodes differ), as bytes.
fn bases() -> Vec<([u8; 64], Gen)> {
    let mut v = Vec::new();
    for g in Gen::ALL {
        for l in lines() {
            if let Ok(i) = tpb_isa::text::asm_line(l, g) {
                v.push((i.encode(), g));
            }
        }
    }
    v
}

/// The fast verdict equals the reference verdict, both as the report's and as `is_valid`.
fn agree(b: &[u8; 64], g: Gen) -> Result<(), String> {
    let inst = Instruction::decode(b, g);
    let fast = is_valid_view(&InstView::new(b, g));
    let report = validate(&inst, g);
    if fast != report.is_valid() || fast != is_valid(&inst, g) {
        let failures: Vec<String> = report.failures().map(|f| f.to_string()).collect();
        return Err(format!(
            "{g}: fast says {fast}, reference {} for {:02x?}: {failures:#?}",
            report.is_valid(),
            b
        ));
    }
    Ok(())
}

#[test]
fn every_template_is_valid_where_it_assembles() {
    // Each opcode family's chain is reached with a valid bundle (the fast dispatch matches
    // every family with its struct).
    let mut seen = std::collections::HashSet::new();
    for g in Gen::ALL {
        for l in lines() {
            let Ok(i) = tpb_isa::text::asm_line(l, g) else {
                continue;
            };
            let b = i.encode();
            agree(&b, g).unwrap();
            if validate(&i, g).is_valid() {
                assert!(is_valid_view(&InstView::new(&b, g)), "{l} on {g}");
                seen.insert(i.info(g).unwrap().family);
            }
        }
    }
    assert_eq!(
        seen.len(),
        // 10 seed families + issue 17a's 10 on cayman (not sunda's bf16 trio).
        20,
        "every family has a valid template: {seen:?}"
    );
}

#[test]
fn every_single_byte_mutation_of_a_valid_bundle() {
    // Exhaustive over position and value on the base's generation: the boundary of every
    // clause one byte reaches (the reference verdict without building reports: the
    // properties below compare with the reports).
    for (base, g) in bases() {
        for pos in 0..64 {
            for val in 0..=255u8 {
                let mut b = base;
                b[pos] = val;
                let fast = is_valid_view(&InstView::new(&b, g));
                if fast != is_valid(&Instruction::decode(&b, g), g) {
                    agree(&b, g).unwrap();
                    panic!("{g}: is_valid and validate disagree on {b:02x?}");
                }
            }
        }
    }
}

/// Byte values that sit on clause boundaries: markers, enum edges, counts, dtypes.
const EDGES: &[u8] = &[
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0x0A, 0x0B, 0x10, 0x12, 0x16, 0x1C, 0x1D, 0x20, 0x40, 0x7F, 0x80,
    0xA0, 0xC0, 0xC4, 0xE0, 0xFF,
];

fn mutated() -> impl Strategy<Value = [u8; 64]> {
    let bases = bases();
    let edit = (
        0..64usize,
        prop_oneof![prop::sample::select(EDGES), any::<u8>()],
    );
    (
        prop::sample::select(bases.into_iter().map(|(b, _)| b).collect::<Vec<_>>()),
        prop::collection::vec(edit, 1..6),
    )
        .prop_map(|(mut b, edits)| {
            for (pos, val) in edits {
                b[pos] = val;
            }
            b
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(5_000))]
    #[test]
    fn fast_verdict_agrees_on_mutated_valid_bundles(b in mutated()) {
        for g in Gen::ALL {
            agree(&b, g).map_err(TestCaseError::fail)?;
        }
    }

    #[test]
    fn fast_verdict_agrees_on_random_bundles(b in bundles::bundle()) {
        for g in Gen::ALL {
            agree(&b, g).map_err(TestCaseError::fail)?;
        }
    }
}
