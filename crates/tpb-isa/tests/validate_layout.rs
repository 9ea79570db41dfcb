//! Every byte range the validator reports is the range the wire layout gives its field path
//! (issue 7 item 3): the path's root is a field of the bundle's layout, and `.num_elem[i]`,
//! `.step_elem[i]`, `.start_addr` name the descriptor slots of seed 001 "The byte map".

use std::collections::BTreeSet;
use std::ops::Range;
use tpb_isa::opcode::OPCODES;
use tpb_isa::validate::rule_walk;
use tpb_isa::{Gen, Instruction};

/// The byte range a field path names, from the instruction's own layout.
fn expected(inst: &Instruction, path: &str) -> Option<Range<usize>> {
    if path == "body" {
        return Some(12..64);
    }
    let fields = inst.fields();
    let mut out: Option<Range<usize>> = None;
    for part in path.split('/') {
        let part = part
            .strip_prefix("header.")
            .or_else(|| part.strip_prefix("events."))
            .unwrap_or(part);
        let root_end = part.find(['.', '[']).unwrap_or(part.len());
        let (root, rest) = part.split_at(root_end);
        let (meta, _) = fields.iter().find(|(m, _)| m.name == root)?;
        let (off, size) = (meta.offset, meta.size);
        // Descriptors: ADDR4 (or i32 base) + N steps + N counts.
        let n = size.saturating_sub(4) / 4;
        let slot = |s: &str| -> Option<Option<usize>> {
            match s {
                "" => Some(None),
                _ => s
                    .strip_prefix('[')?
                    .strip_suffix(']')?
                    .parse()
                    .ok()
                    .map(Some),
            }
        };
        let r = if rest.is_empty() {
            off..off + size
        } else if let Some(i) = rest.strip_prefix(".num_elem") {
            match slot(i)? {
                Some(i) => off + 4 + 2 * n + 2 * i..off + 4 + 2 * n + 2 * i + 2,
                None => off + 4 + 2 * n..off + size,
            }
        } else if let Some(i) = rest.strip_prefix(".step_elem") {
            match slot(i)? {
                Some(i) => off + 4 + 2 * i..off + 6 + 2 * i,
                None => off + 4..off + 4 + 2 * n,
            }
        } else if rest == ".indirect_addr" {
            off + 4..off + 8
        } else if rest == ".start_addr" || rest == ".base" {
            off..off + 4
        } else if rest == ".dtype_hi" || rest == ".dtype_lo" {
            off..off + size
        } else {
            return None;
        };
        out = Some(match out {
            None => r,
            Some(o) => o.start.min(r.start)..o.end.max(r.end),
        });
    }
    out
}

/// A deterministic bundle stream: every modelled opcode, random fields, some zeroed events.
fn bundles() -> impl Iterator<Item = [u8; 64]> {
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    (0..4000).map(move |i| {
        let mut b = [0u8; 64];
        for c in b.chunks_mut(8) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            c.copy_from_slice(&x.to_le_bytes());
        }
        b[0] = OPCODES[i % OPCODES.len()].value;
        b[1] = 0x10;
        if i % 3 != 0 {
            b[4..12].fill(0);
        }
        // Small counts so count and range rules pass as often as they fail.
        if i % 2 == 0 {
            for v in b[12..].iter_mut().skip(1).step_by(2) {
                *v &= 0x01;
            }
        }
        b
    })
}

#[test]
fn every_reported_byte_range_is_the_layouts_range_for_its_field_path() {
    let mut seen = BTreeSet::new();
    let mut bad = BTreeSet::new();
    for gen in Gen::ALL {
        for b in bundles() {
            let inst = Instruction::decode(&b, gen);
            for f in rule_walk(&inst, gen).findings {
                let key = (
                    inst.opcode().0,
                    f.field.clone(),
                    (f.bytes.start, f.bytes.end),
                );
                if !seen.insert(key.clone()) {
                    continue;
                }
                if expected(&inst, &f.field) != Some(f.bytes.clone()) {
                    bad.insert(format!(
                        "{:#04x} {} `{}` reported {:?}, layout says {:?}",
                        key.0,
                        f.rule.name,
                        f.field,
                        f.bytes,
                        expected(&inst, &f.field)
                    ));
                }
            }
        }
    }
    assert!(seen.len() > 200, "only {} distinct findings", seen.len());
    assert!(
        bad.is_empty(),
        "{} mismatches:\n{}",
        bad.len(),
        bad.into_iter().collect::<Vec<_>>().join("\n")
    );
}
