//! The access-pattern packer: every rule of seed 001 ("assignStaticPattern<TENSOR{N}D>"),
//! isa-facts §2.2/§3 and the decisions §1.5 GOTCHA.

use proptest::prelude::*;
use tpb_isa::geometry::Space;
use tpb_isa::pack::{
    illegal_dimension_text, pack, pack_explicit, AccessPattern, Dim, DimOrder, PackError, Packed,
};
use tpb_isa::wire::{Addr4, Field, Tensor};
use tpb_isa::Gen;

/// An SBUF pattern on partitions 0..128 at offset 0 with the given free dims, outermost first.
fn ap(free: &[[i64; 2]]) -> AccessPattern {
    AccessPattern::new(Space::Sbuf, 0, 128, 0)
        .with_free(free.iter().copied(), DimOrder::OutermostFirst)
}

fn slots<const N: usize>(p: &Packed<N>) -> Vec<[i64; 2]> {
    (0..N)
        .map(|i| {
            [
                i64::from(p.tensor.step_elem[i]),
                i64::from(p.tensor.num_elem[i]),
            ]
        })
        .collect()
}

// seed 001 "How the four dims map to the slots": num == 1 free dims are dropped.
#[test]
fn seed001_num1_dims_dropped() {
    let p = pack::<4>(Gen::Cayman, &ap(&[[7, 1], [64, 2], [9, 1], [1, 64]])).unwrap();
    assert_eq!(slots(&p), [[1, 64], [64, 2], [1, 1], [1, 1]]);
    assert_eq!(p.slot_source, [Some(4), Some(2), None, None]);
    assert_eq!(p.active_dims, 3);
    // A pattern made only of unit dims packs to the all-{1,1} descriptor.
    let p = pack::<2>(Gen::Cayman, &ap(&[[5, 1], [6, 1], [7, 1]])).unwrap();
    assert_eq!(slots(&p), [[1, 1], [1, 1]]);
    assert_eq!(p.active_dims, 1);
}

// seed 001: free dims Pattern[num_dims-1 .. 1] are walked innermost first and the survivors
// compacted into slots 0,1,2,3 from the bottom (slot 0 = innermost).
#[test]
fn seed001_innermost_first_compaction() {
    let outer = [[100, 2], [10, 3], [1, 4]];
    let p = pack::<3>(Gen::Sunda, &ap(&outer)).unwrap();
    assert_eq!(slots(&p), [[1, 4], [10, 3], [100, 2]]);
    assert_eq!(p.slot_source, [Some(3), Some(2), Some(1)]);
    // The same dims given innermost first pack to the same descriptor.
    let inner = AccessPattern::new(Space::Sbuf, 0, 128, 0)
        .with_free([[1, 4], [10, 3], [100, 2]], DimOrder::InnermostFirst);
    assert_eq!(inner, ap(&outer));
    assert_eq!(pack::<3>(Gen::Sunda, &inner).unwrap(), p);
    // Compaction skips a dropped middle dim: [2,5],[3,1],[1,6] -> slots [1,6],[2,5].
    let p = pack::<4>(Gen::Sunda, &ap(&[[2, 5], [3, 1], [1, 6]])).unwrap();
    assert_eq!(slots(&p), [[1, 6], [2, 5], [1, 1], [1, 1]]);
    // Negative free steps are kept as given (sign-preserving i16).
    let p = pack::<1>(Gen::Sunda, &ap(&[[-1, 16]])).unwrap();
    assert_eq!(slots(&p), [[-1, 16]]);
}

// seed 001 "The runtime range check": the packer writes the {1,1} defaults at the 4D spill
// offsets directly (step3 @ +0xA, num3 @ +0x12); isa-facts §3.1 for the other sizes.
#[test]
fn seed001_unit_fill_at_spill_offsets() {
    let p = pack::<4>(Gen::Cayman, &ap(&[[3, 5], [1, 7]])).unwrap();
    let b = p.bytes();
    assert_eq!(b.len(), 20);
    assert_eq!(&b[0xA..0xC], &1i16.to_le_bytes(), "step3 = 1 at +0xA");
    assert_eq!(&b[0x12..0x14], &1u16.to_le_bytes(), "num3 = 1 at +0x12");
    assert_eq!(&b[0x8..0xA], &1i16.to_le_bytes(), "step2 = 1 at +0x8");
    assert_eq!(&b[0x10..0x12], &1u16.to_le_bytes(), "num2 = 1 at +0x10");
    assert_eq!(
        &b[0xC..0xE],
        &7u16.to_le_bytes(),
        "num0 at +0xC, not the 3D +0xA"
    );
    assert_eq!(
        b,
        [0, 0, 0, 0, 1, 0, 3, 0, 1, 0, 1, 0, 7, 0, 5, 0, 1, 0, 1, 0],
        "4+4N layout: ADDR4, steps, then counts"
    );
    // Same pattern in a 16-byte TENSOR3D: the count base is +0xA, the fill is step2/num2.
    let b = pack::<3>(Gen::Cayman, &ap(&[[3, 5], [1, 7]]))
        .unwrap()
        .bytes();
    assert_eq!(b, [0, 0, 0, 0, 1, 0, 3, 0, 1, 0, 7, 0, 5, 0, 1, 0]);
    // TENSOR1D / TENSOR2D sizes (8 / 12 bytes).
    assert_eq!(
        pack::<1>(Gen::Cayman, &ap(&[])).unwrap().bytes(),
        [0, 0, 0, 0, 1, 0, 1, 0]
    );
    assert_eq!(
        pack::<2>(Gen::Cayman, &ap(&[[1, 9]]))
            .unwrap()
            .bytes()
            .len(),
        12
    );
}

// seed 001 / isa-facts §3.4: 3D packer requires active <= 4 ("cmp $0x4"), text without colon.
#[test]
fn seed001_active_dimension_limit_3d() {
    // Three non-unit free dims (+ partition) = 4 active: fits, whatever the unit dims.
    let ok = pack::<3>(
        Gen::Cayman,
        &ap(&[[1, 1], [8, 2], [1, 1], [4, 2], [2, 2], [1, 1]]),
    );
    assert_eq!(ok.unwrap().active_dims, 4);
    let err = pack::<3>(Gen::Cayman, &ap(&[[16, 2], [8, 2], [4, 2], [2, 2]])).unwrap_err();
    assert_eq!(err, PackError::IllegalDimension { active: 5, n: 3 });
    assert_eq!(
        err.to_string(),
        "Illegal ISA memory access dimension 5, which must be in range of [1, 3]D tensor for ISA mem pattern"
    );
}

// seed 001 "The runtime range check": 4D requires active <= 5 ("cmp $0x5"), text with colon.
#[test]
fn seed001_active_dimension_limit_4d() {
    let four = [[16, 2], [8, 2], [4, 2], [2, 2]];
    assert_eq!(pack::<4>(Gen::Cayman, &ap(&four)).unwrap().active_dims, 5);
    let err = pack::<4>(
        Gen::Cayman,
        &ap(&[[32, 2], [16, 2], [8, 2], [4, 2], [2, 2]]),
    )
    .unwrap_err();
    assert_eq!(err, PackError::IllegalDimension { active: 6, n: 4 });
    assert_eq!(
        err.to_string(),
        "Illegal ISA memory access dimension: 6, which must be in range of [1, 4]D tensor for ISA mem pattern"
    );
    // A zero num is "!= 1", so it counts as active (and is rejected later by the count guard).
    let err = pack::<4>(
        Gen::Cayman,
        &ap(&[[32, 0], [16, 2], [8, 2], [4, 2], [2, 2]]),
    )
    .unwrap_err();
    assert_eq!(err, PackError::IllegalDimension { active: 6, n: 4 });
}

// 1D/2D: ASSUMED to follow the 3D wording (only 3D and 4D are quoted by isa-facts §3.4).
#[test]
fn active_dimension_limit_1d_2d_assumed_text() {
    assert!(pack::<1>(Gen::Cayman, &ap(&[[1, 8]])).is_ok());
    assert_eq!(
        pack::<1>(Gen::Cayman, &ap(&[[8, 2], [1, 8]])).unwrap_err().to_string(),
        "Illegal ISA memory access dimension 3, which must be in range of [1, 1]D tensor for ISA mem pattern"
    );
    assert!(pack::<2>(Gen::Cayman, &ap(&[[8, 2], [1, 8]])).is_ok());
    assert_eq!(
        pack::<2>(Gen::Cayman, &ap(&[[16, 2], [8, 2], [1, 8]])).unwrap_err().to_string(),
        "Illegal ISA memory access dimension 4, which must be in range of [1, 2]D tensor for ISA mem pattern"
    );
    assert_eq!(
        illegal_dimension_text(7, 4),
        "Illegal ISA memory access dimension: 7, which must be in range of [1, 4]D tensor for ISA mem pattern"
    );
}

// seed 001 "The byte map" / isa-facts §3.2: step is a signed i16 (sign-match overflow guard).
#[test]
fn seed001_step_range() {
    for s in [i64::from(i16::MIN), -1, 0, i64::from(i16::MAX)] {
        let p = pack::<2>(Gen::Cayman, &ap(&[[s, 3]])).unwrap();
        assert_eq!(i64::from(p.tensor.step_elem[0]), s);
    }
    let err = pack::<2>(Gen::Cayman, &ap(&[[32768, 3], [1, 2]])).unwrap_err();
    assert_eq!(
        err,
        PackError::StepRange {
            dim: 1,
            step: 32768
        }
    );
    assert!(err.to_string().contains("Pattern[1] step 32768"), "{err}");
    let err = pack::<2>(Gen::Cayman, &ap(&[[1, 2], [-32769, 3]])).unwrap_err();
    assert_eq!(
        err,
        PackError::StepRange {
            dim: 2,
            step: -32769
        }
    );
    assert!(err.to_string().contains("Pattern[2] step -32769"), "{err}");
}

// seed 001 / isa-facts §3.2: num is a u16 through a zero-rejecting guard.
#[test]
fn seed001_num_range_and_zero_rejected() {
    let p = pack::<1>(Gen::Cayman, &ap(&[[1, 65535]])).unwrap();
    assert_eq!(p.tensor.num_elem, [65535]);
    let err = pack::<1>(Gen::Cayman, &ap(&[[1, 65536]])).unwrap_err();
    assert_eq!(err, PackError::NumRange { dim: 1, num: 65536 });
    assert!(err.to_string().contains("Pattern[1] num 65536"), "{err}");
    let err = pack::<2>(Gen::Cayman, &ap(&[[1, 2], [1, -3]])).unwrap_err();
    assert_eq!(err, PackError::NumRange { dim: 2, num: -3 });
    let err = pack::<2>(Gen::Cayman, &ap(&[[1, 0], [1, 2]])).unwrap_err();
    assert_eq!(err, PackError::ZeroNum { dim: 1 });
    assert!(err.to_string().contains("Pattern[1] num is 0"), "{err}");
    // The explicit packer stores (and so checks) the same words.
    let err = pack_explicit::<2>(Gen::Cayman, &ap(&[[1, 0]])).unwrap_err();
    assert_eq!(err, PackError::ZeroNum { dim: 1 });
}

// The compiler never stores a dropped (num == 1) dim, so its step is not range-checked;
// pack_explicit stores every dim and so checks it (module docs, ASSUMED).
#[test]
fn dropped_dim_step_not_stored() {
    assert!(pack::<2>(Gen::Cayman, &ap(&[[100_000, 1], [1, 4]])).is_ok());
    assert_eq!(
        pack_explicit::<2>(Gen::Cayman, &ap(&[[100_000, 1], [1, 4]])).unwrap_err(),
        PackError::StepRange {
            dim: 1,
            step: 100_000
        }
    );
}

// isa-facts §2.2 / §3.3: Pattern[0] folds into ADDR4 as partition*stride + offset (SBUF),
// 0x2000000 + partition*32KiB + offset (PSUM); the count is num_active_channels.
#[test]
fn isa_facts_partition_folding_every_generation() {
    let sbuf_stride = |g: Gen| {
        if g == Gen::Maverick {
            0x10_0000u32
        } else {
            0x4_0000
        }
    };
    for gen in Gen::ALL {
        for (start, count, off) in [
            (0u32, 128i64, 0u64),
            (3, 5, 0x400),
            (127, 1, 0x3FFFE),
            (64, 64, 8),
        ] {
            let a = AccessPattern::new(Space::Sbuf, start, count, off)
                .with_free([[1, 4]], DimOrder::OutermostFirst);
            let p = pack::<4>(gen, &a).unwrap();
            assert_eq!(
                p.tensor.start_addr,
                Addr4(start * sbuf_stride(gen) + off as u32),
                "{gen} sbuf"
            );
            assert_eq!(i64::from(p.num_active_channels), count);
            assert_eq!(
                p.tensor.to_text(gen),
                format!("sbuf[p{start}]+{off:#x}:[[1,4],[1,1],[1,1],[1,1]]")
            );

            let a = AccessPattern {
                space: Space::Psum,
                offset: off & 0x7FFF,
                ..a
            };
            let r = pack::<4>(gen, &a);
            if gen == Gen::Maverick {
                // Maverick: PSUM_BUF_SZ = 0, no PSUM.
                assert_eq!(
                    r.unwrap_err(),
                    PackError::SpaceUnavailable {
                        gen,
                        space: Space::Psum
                    }
                );
            } else {
                let p = r.unwrap();
                assert_eq!(
                    p.tensor.start_addr,
                    Addr4(0x200_0000 + start * 0x8000 + (off & 0x7FFF) as u32)
                );
                assert_eq!(
                    p.tensor.start_addr.locate(gen),
                    Some((Space::Psum, start, (off & 0x7FFF) as u32))
                );
            }
        }
    }
    // Maverick's 1 MiB stride: partition 3 lies at 3 MiB, which is PSUM's window on cayman.
    let a = AccessPattern::new(Space::Sbuf, 32, 1, 0);
    assert_eq!(
        pack::<1>(Gen::Maverick, &a).unwrap().tensor.start_addr,
        Addr4(0x200_0000)
    );
    assert_eq!(
        pack::<1>(Gen::Cayman, &a).unwrap().tensor.start_addr,
        Addr4(0x80_0000)
    );
}

#[test]
fn partition_checks() {
    let base = AccessPattern::new(Space::Sbuf, 0, 128, 0);
    let neg = AccessPattern {
        partition: Dim::new(-1, 128),
        ..base.clone()
    };
    let err = pack::<1>(Gen::Cayman, &neg).unwrap_err();
    assert_eq!(err, PackError::NegativePartitionStep { step: -1 });
    assert!(err
        .to_string()
        .starts_with("Negative step in Pattern[0] not supported"));
    for count in [0, 129, -4] {
        let a = AccessPattern::new(Space::Sbuf, 0, count, 0);
        assert_eq!(
            pack::<1>(Gen::Cayman, &a).unwrap_err(),
            PackError::PartitionCount { count }
        );
    }
    let a = AccessPattern::new(Space::Psum, 100, 29, 0);
    let err = pack::<1>(Gen::Cayman, &a).unwrap_err();
    assert_eq!(
        err,
        PackError::PartitionRange {
            start: 100,
            count: 29
        }
    );
    assert!(err.to_string().contains("100..129"), "{err}");
    assert!(pack::<1>(Gen::Cayman, &AccessPattern::new(Space::Psum, 100, 28, 0)).is_ok());
}

#[test]
fn address_checks() {
    // Offset at the partition stride would alias into the next partition (ASSUMED check).
    let a = AccessPattern::new(Space::Sbuf, 0, 1, 0x4_0000);
    assert_eq!(
        pack::<1>(Gen::Sunda, &a).unwrap_err(),
        PackError::OffsetOutsidePartition {
            gen: Gen::Sunda,
            space: Space::Sbuf,
            offset: 0x4_0000,
            stride: 0x4_0000
        }
    );
    assert!(pack::<1>(Gen::Maverick, &a).is_ok());
    let a = AccessPattern::new(Space::Psum, 0, 1, 0x8000);
    assert!(matches!(
        pack::<1>(Gen::Sunda, &a),
        Err(PackError::OffsetOutsidePartition { .. })
    ));
    // The ADDR4 encoder's assert.
    let a = AccessPattern::new(Space::Sbuf, 5, 1, u64::from(u32::MAX));
    let err = pack::<1>(Gen::Cayman, &a).unwrap_err();
    assert_eq!(
        err,
        PackError::AddressOutOfRange {
            addr: 5 * 0x4_0000 + u64::from(u32::MAX)
        }
    );
    assert!(err
        .to_string()
        .starts_with("memory address out of uint32 range"));
}

// decisions §1.5 GOTCHA / seed 000 §4: PtrMulti reads W from num_elem[3]. Compaction of a
// [W=4, Z=1, Y=2, X=8] pattern drops Z and moves W to slot 2; pack_explicit keeps it in slot 3.
#[test]
fn decisions_1_5_gotcha_compaction_moves_w() {
    let wzyx = ap(&[[16, 4], [16, 1], [8, 2], [1, 8]]);
    let compact = pack::<4>(Gen::Cayman, &wzyx).unwrap();
    assert_eq!(slots(&compact), [[1, 8], [8, 2], [16, 4], [1, 1]]);
    assert_eq!(compact.tensor.num_elem[3], 1, "W is no longer in slot 3");
    let explicit = pack_explicit::<4>(Gen::Cayman, &wzyx).unwrap();
    assert_eq!(slots(&explicit), [[1, 8], [8, 2], [16, 1], [16, 4]]);
    assert_eq!(explicit.tensor.num_elem[3], 4, "W stays in num_elem[3]");
    assert_eq!(explicit.slot_source, [Some(4), Some(3), Some(2), Some(1)]);
    // Both walk the same elements: only the slot positions differ.
    assert_eq!(walk_tensor(&compact.tensor), walk_tensor(&explicit.tensor));
    // pack_explicit pads only the unused outer slots, and refuses more dims than slots.
    let p = pack_explicit::<4>(Gen::Cayman, &ap(&[[8, 1], [1, 8]])).unwrap();
    assert_eq!(slots(&p), [[1, 8], [8, 1], [1, 1], [1, 1]]);
    assert_eq!(p.slot_source, [Some(2), Some(1), None, None]);
    assert_eq!(
        pack_explicit::<3>(Gen::Cayman, &wzyx).unwrap_err(),
        PackError::TooManyExplicitDims { given: 4, n: 3 }
    );
}

// The CLI's documented example (issue 3 item 2).
#[test]
fn cli_example_descriptor() {
    let a = AccessPattern::new(Space::Sbuf, 0, 128, 0x400)
        .with_free([[64, 2], [1, 64]], DimOrder::OutermostFirst);
    let p = pack::<4>(Gen::Cayman, &a).unwrap();
    assert_eq!(
        p.tensor.to_text(Gen::Cayman),
        "sbuf[p0]+0x400:[[1,64],[64,2],[1,1],[1,1]]"
    );
    assert_eq!(p.num_active_channels, 128);
    assert_eq!(
        p.bytes(),
        [0x00, 0x04, 0, 0, 1, 0, 64, 0, 1, 0, 1, 0, 64, 0, 2, 0, 1, 0, 1, 0]
    );
}

/// Element offsets (in elements, relative to the start) of a pattern's free dims given
/// outermost first, walked with the innermost dim fastest.
fn walk_pattern(free: &[Dim]) -> Vec<i64> {
    let mut out = vec![0i64];
    // Build from the outermost dim inwards: each dim repeats the inner walk.
    for d in free {
        out = out
            .iter()
            .flat_map(|&o| (0..d.num).map(move |i| o + i * d.step))
            .collect();
    }
    out
}

/// Element offsets a descriptor walks, slot 0 fastest (decisions §3.3).
fn walk_tensor<const N: usize>(t: &Tensor<N>) -> Vec<i64> {
    let outer_first: Vec<Dim> = (0..N)
        .rev()
        .map(|i| Dim::new(i64::from(t.step_elem[i]), i64::from(t.num_elem[i])))
        .collect();
    walk_pattern(&outer_first)
}

fn pattern_strategy() -> impl Strategy<Value = Vec<Dim>> {
    let num = prop_oneof![3 => Just(1i64), 4 => 2i64..=4];
    prop::collection::vec((-40i64..=40, num).prop_map(|(s, n)| Dim::new(s, n)), 0..=6)
}

fn check_walk<const N: usize>(free: &[Dim]) -> Result<(), TestCaseError> {
    let a = AccessPattern::new(Space::Sbuf, 0, 1, 0)
        .with_free(free.iter().copied(), DimOrder::OutermostFirst);
    let want = walk_pattern(free);
    match pack::<N>(Gen::Cayman, &a) {
        Ok(p) => {
            prop_assert!(a.active_dims() <= N + 1);
            prop_assert_eq!(walk_tensor(&p.tensor), want.clone());
            prop_assert_eq!(p.tensor.element_count() as usize, want.len());
            // The descriptor survives its own wire round trip.
            prop_assert_eq!(Tensor::<N>::read(&p.bytes()), p.tensor);
        }
        Err(e) => {
            prop_assert_eq!(
                e,
                PackError::IllegalDimension {
                    active: a.active_dims(),
                    n: N
                }
            );
            prop_assert!(a.active_dims() > N + 1);
        }
    }
    if free.len() <= N {
        let p = pack_explicit::<N>(Gen::Cayman, &a).unwrap();
        prop_assert_eq!(walk_tensor(&p.tensor), want);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]
    // seed 001: dropping num == 1 dims and compacting innermost first preserves the walk —
    // slot 0 fastest visits exactly the offsets of the free dims walked innermost fastest.
    #[test]
    fn seed001_packed_walk_equals_pattern_walk(free in pattern_strategy()) {
        check_walk::<1>(&free)?;
        check_walk::<2>(&free)?;
        check_walk::<3>(&free)?;
        check_walk::<4>(&free)?;
    }
}
