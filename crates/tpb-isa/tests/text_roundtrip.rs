//! Round-trip properties of the text syntax (issue 3 item 1):
//! `asm(disasm(b)) == b` for every 64-byte input on every generation, and `disasm(asm(t))` is
//! canonical: every spelling of an instruction disassembles to the same line, and that line
//! is a fixed point.

#[path = "support/bundles.rs"]
mod bundles;
#[path = "support/differential.rs"]
mod differential;

use bundles::bundle;
use proptest::prelude::*;
use tpb_isa::opcode::OPCODES;
use tpb_isa::text::{asm, asm_line, disasm, disasm_program, AsmOptions, FIELD_ALIASES};
use tpb_isa::wire::{Tensor, TextRef};
use tpb_isa::{Gen, Instruction, Opcode};

fn assert_round_trip(b: &[u8; 64], gen: Gen) {
    let inst = Instruction::decode(b, gen);
    let text = disasm(&inst, gen);
    assert!(!text.contains('\n'), "{text}");
    differential::assert_same(&text, &AsmOptions::new(gen));
    match asm_line(&text, gen) {
        Ok(back) => assert_eq!(back.encode(), *b, "{gen}: {text}"),
        Err(e) => panic!("{gen}: `{text}` does not assemble:\n{e}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]

    #[test]
    fn asm_of_disasm_is_the_identity_on_bytes(b in bundle()) {
        for gen in Gen::ALL {
            assert_round_trip(&b, gen);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn programs_round_trip(bs in prop::collection::vec(bundle(), 0..6), g in 0usize..4) {
        let gen = Gen::ALL[g];
        let insts: Vec<Instruction> = bs.iter().map(|b| Instruction::decode(b, gen)).collect();
        let text = disasm_program(&insts, gen);
        // Whatever generation the caller starts with, the `.gen` line decides.
        let a = asm(&text, &AsmOptions::new(Gen::ALL[(g + 1) % 4])).unwrap();
        prop_assert_eq!(a.final_gen, gen);
        prop_assert_eq!(a.to_bytes(), bs.concat());
    }
}

#[test]
fn every_opcode_byte_round_trips_on_every_generation() {
    for op in 0..=255u8 {
        for fill in [0x00u8, 0x01, 0x5A, 0x80, 0xA5, 0xFF] {
            let mut b = [fill; 64];
            b[0] = op;
            for gen in Gen::ALL {
                assert_round_trip(&b, gen);
            }
            // The same with a clean header and zeroed body: the common case.
            let mut z = [0u8; 64];
            z[0] = op;
            z[1] = 0x10;
            z[12..].fill(fill & 1);
            for gen in Gen::ALL {
                assert_round_trip(&z, gen);
            }
        }
    }
}

/// Every byte of every modelled struct, at edge values, starting from `Instruction::new`.
#[test]
fn every_field_byte_at_edge_values_round_trips() {
    for row in OPCODES {
        for gen in Gen::ALL {
            let base = Instruction::new(Opcode(row.value), gen).encode();
            for pos in 1..64 {
                for v in [0u8, 1, 0x0F, 0x10, 0x7F, 0x80, 0xC0, 0xFF] {
                    let mut b = base;
                    b[pos] = v;
                    assert_round_trip(&b, gen);
                }
            }
        }
    }
}

/// A tiny deterministic generator so one proptest seed drives many spelling choices.
struct Choices(u64);

impl Choices {
    fn next(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n.max(1) as u64) as usize
    }
    fn coin(&mut self) -> bool {
        self.next(2) == 0
    }
}

/// Short names that denote `field` for this instruction.
fn aliases_of(inst: &Instruction, field: &str) -> Vec<&'static str> {
    let names: Vec<&str> = inst.fields().iter().map(|(m, _)| m.name).collect();
    FIELD_ALIASES
        .iter()
        .filter(|(_, targets)| targets.iter().find(|t| names.contains(t)) == Some(&field))
        .map(|(a, _)| *a)
        .collect()
}

/// Drops trailing `[1,1]` pairs (the assembler refills them).
fn drop_unit_tail(value: &str, how_many: usize) -> String {
    let mut v = value.to_string();
    for _ in 0..how_many {
        if let Some(s) = v.strip_suffix(",[1,1]]") {
            v = format!("{s}]");
        } else if let Some(s) = v.strip_suffix(":[[1,1]]") {
            v = format!("{s}:[]");
        }
    }
    v
}

/// Replaces `[pA..B]` by `[pA]`, returning the count B - A.
fn unrange(value: &str) -> (String, Option<u32>) {
    let (Some(open), Some(dots)) = (value.find("[p"), value.find("..")) else {
        return (value.to_string(), None);
    };
    let close = value.find(']').unwrap();
    let start: u32 = value[open + 2..dots].parse().unwrap();
    let end: u32 = value[dots + 2..close].parse().unwrap();
    (
        format!("{}[p{start}{}", &value[..open], &value[close..]),
        Some(end - start),
    )
}

/// Another spelling of the canonical line `canonical` of `inst`.
fn respell(inst: &Instruction, gen: Gen, canonical: &str, c: &mut Choices) -> String {
    let mut words = canonical.split(' ');
    let mnemonic = words.next().unwrap();
    let row = inst.opcode().info(gen).unwrap();
    let mnemonic = match c.next(6) {
        0 => mnemonic.to_string(),
        1 => mnemonic.to_ascii_uppercase(),
        2 => row.display.to_string(),
        3 => row.header_name.to_string(),
        4 => format!("{:#04x}", row.value),
        _ => row.value.to_string(),
    };
    let mut fields: Vec<(String, String)> = words
        .map(|w| {
            let (k, v) = w.split_once('=').unwrap();
            (k.to_string(), v.to_string())
        })
        .collect();
    let unranged = c.next(4) == 0;
    let mut channels = None;
    for (k, v) in fields.iter_mut() {
        if unranged {
            let (u, n) = unrange(v);
            *v = u;
            channels = channels.or(n);
        }
        if v.contains(":[[") {
            *v = drop_unit_tail(v, c.next(5));
            if c.coin() {
                *v = v.replace(',', ", ");
            }
        }
        if c.next(4) == 0 {
            *v = v.to_ascii_uppercase();
        }
        let aliases = aliases_of(inst, k);
        match c.next(4) {
            0 if !aliases.is_empty() => *k = aliases[c.next(aliases.len())].to_string(),
            1 => *k = k.to_ascii_uppercase(),
            _ => {}
        }
    }
    if let Some(n) = channels {
        fields.push(("channels".into(), n.to_string()));
    }
    // Spell out some fields that the canonical line leaves at their default.
    let default = Instruction::new(inst.opcode(), gen);
    for ((meta, f), (_, d)) in inst.fields().iter().zip(default.fields()) {
        let printed = canonical.contains(&format!(" {}=", meta.name));
        let folded = meta.name == "num_active_channels";
        if !printed && !folded && meta.name != "opcode" && f.text(gen) == d.text(gen) && c.coin() {
            fields.push((meta.name.to_string(), f.text(gen)));
        }
    }
    // Shuffle.
    for i in (1..fields.len()).rev() {
        fields.swap(i, c.next(i + 1));
    }
    let mut line = if c.coin() {
        "\t ".to_string()
    } else {
        String::new()
    };
    line.push_str(&mnemonic);
    for (k, v) in fields {
        let sep = ["=", " = ", "= "][c.next(3)];
        line.push_str(&format!(" {k}{sep}{v}"));
    }
    match c.next(3) {
        0 => line.push_str("  # a comment"),
        1 => line.push_str(";x=1 [ unclosed"),
        _ => {}
    }
    line
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    /// Every spelling (aliases, case, spacing, order, omitted `[1,1]` slots, explicit
    /// defaults, single partitions plus `channels=`) disassembles to the canonical line.
    #[test]
    fn every_spelling_disassembles_to_the_canonical_line(
        b in bundle(),
        g in 0usize..4,
        seed in 1u64..,
    ) {
        let gen = Gen::ALL[g];
        let inst = Instruction::decode(&b, gen);
        let canonical = disasm(&inst, gen);
        prop_assume!(!canonical.starts_with(".bundle"));
        let mut c = Choices(seed);
        for _ in 0..4 {
            let spelling = respell(&inst, gen, &canonical, &mut c);
            differential::assert_same(&spelling, &AsmOptions::new(gen));
            let back = asm_line(&spelling, gen)
                .unwrap_or_else(|e| panic!("`{spelling}` (from `{canonical}`):\n{e}"));
            prop_assert_eq!(back.encode(), b, "{}", spelling);
            prop_assert_eq!(disasm(&back, gen), canonical.clone());
        }
    }
}

/// A value for one field of a freshly generated line, written in one of its forms.
fn value_for(
    f: &dyn tpb_isa::wire::FieldDyn,
    donor: &dyn tpb_isa::wire::FieldDyn,
    gen: Gen,
    channels: u32,
    c: &mut Choices,
) -> String {
    let form = f.text_value();
    let slots = match form {
        TextRef::Tensor(t) => Some(t.num_elem.len()),
        _ => None,
    };
    let pairs = |c: &mut Choices, n: usize| {
        let k = c.next(n + 1);
        let v: Vec<String> = (0..k)
            .map(|_| {
                format!(
                    "[{},{}]",
                    c.next(64) as i32 - 32,
                    [0, 1, 2, 7, 64, 512, 65535][c.next(7)]
                )
            })
            .collect();
        format!("[{}]", v.join(","))
    };
    if let Some(n) = slots {
        let p = c.next(128) as u32;
        let space = if c.coin() { "sbuf" } else { "psum" };
        let addr = match c.next(6) {
            0 | 1 => format!("{space}[p{p}..{}]+{:#x}", p + channels, c.next(0x4000)),
            2 => format!("{space}[{p}]+{}", c.next(0x4000)),
            3 => format!("reg[{}]", c.next(64)),
            4 => format!("{:#x}", c.next(usize::MAX) as u32),
            _ => format!("{space}[p{p}]"),
        };
        return format!("{addr}:{}", pairs(c, n));
    }
    if let TextRef::Data4d(_) = form {
        return format!("{}:{}", c.next(2000) as i32 - 1000, pairs(c, 4));
    }
    donor.text(gen)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    /// Freshly generated lines (random fields in random forms): when they assemble, one
    /// round of `disasm∘asm` reaches the canonical fixed point.
    #[test]
    fn generated_lines_reach_a_canonical_fixed_point(
        donor_bytes in bundle(),
        row in 0..OPCODES.len(),
        g in 0usize..4,
        seed in 1u64..,
    ) {
        let gen = Gen::ALL[g];
        let op = Opcode(OPCODES[row].value);
        let mut c = Choices(seed);
        let mut donor = donor_bytes;
        donor[0] = op.0;
        let donor = Instruction::decode(&donor, gen);
        let fresh = Instruction::new(op, gen);
        let channels = [1u32, 32, 64, 128, 0][c.next(5)];
        let mut line = OPCODES[row].mnemonic.to_string();
        for ((meta, f), (_, d)) in fresh.fields().iter().zip(donor.fields()) {
            if meta.name == "opcode" || c.next(3) == 0 {
                continue;
            }
            let value = if meta.name == "num_active_channels" && c.coin() {
                channels.to_string()
            } else {
                value_for(*f, d, gen, channels, &mut c)
            };
            line.push_str(&format!(" {}={value}", meta.name));
        }
        let src = format!("# generated\n.gen {gen}\n{line}\n");
        differential::assert_same(&src, &AsmOptions::default());
        if let Ok(a) = asm(&src, &AsmOptions::default()) {
            let t1 = disasm_program(&a.insts(), gen);
            let a1 = asm(&t1, &AsmOptions::default())
                .unwrap_or_else(|e| panic!("canonical `{t1}` of `{line}`:\n{e}"));
            prop_assert_eq!(a1.to_bytes(), a.to_bytes());
            prop_assert_eq!(disasm_program(&a1.insts(), gen), t1);
        }
    }
}

/// Every bundle of every committed program binary (`examples/*.bin`) round-trips through
/// the text on every generation, and so does the whole program.
#[test]
fn committed_program_binaries_round_trip() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut files = 0;
    for entry in std::fs::read_dir(&dir).expect("examples/ is readable") {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("bin") {
            continue;
        }
        files += 1;
        let bytes = std::fs::read(&path).unwrap();
        for gen in Gen::ALL {
            let insts = tpb_isa::decode_program(&bytes, gen).unwrap();
            for (i, b) in bytes.chunks_exact(64).enumerate() {
                let b: [u8; 64] = b.try_into().unwrap();
                assert_eq!(Instruction::decode(&b, gen), insts[i]);
                assert_round_trip(&b, gen);
            }
            let text = disasm_program(&insts, gen);
            let a = asm(&text, &AsmOptions::default()).unwrap();
            assert_eq!(a.to_bytes(), bytes, "{} on {gen}", path.display());
        }
    }
    assert!(files > 0, "no .bin files in {}", dir.display());
}

// Issue 16 item 6 (seed 001 "QUIRK — an indirect 4D descriptor reinterprets +4 as a second
// address"): marker 0x20 / 0xA0 puts a second address where the plain form keeps
// step_elem[0..2]. The text shows it as an address, not as two steps, both disassemblers
// agree, and the line assembles back to the same bytes.
#[test]
fn indirect_tensor4d_prints_its_second_address_and_round_trips() {
    use tpb_isa::text::disasm_plain;
    use tpb_isa::wire::{Addr4, Body, S4d4Tsm};
    for marker in [0x20u32, 0xA0] {
        for gen in Gen::ALL {
            let mut inst = Instruction::new(Opcode(0x4F), gen);
            let dst = Tensor::<4> {
                start_addr: Addr4(marker << 24 | 0x1000),
                step_elem: [0x0100, 0, 1, 1],
                num_elem: [16, 1, 1, 8],
            };
            inst.body = Body::S4d4Tsm(S4d4Tsm {
                num_active_channels: 128,
                dst_mem_pattern: dst,
                ..Default::default()
            });
            let text = disasm(&inst, gen);
            let want = format!(
                "dst_mem_pattern={:#010x}|{}:[[_,16],[_,1],[1,1],[1,8]]",
                marker << 24 | 0x1000,
                tpb_isa::wire::Field::to_text(&Addr4(0x0100), gen)
            );
            assert!(text.contains(&want), "{gen}: {text} lacks {want}");
            assert_eq!(disasm_plain(&inst, gen), text, "{gen}");
            assert_round_trip(&inst.encode(), gen);
        }
    }
    // The raw form of the same bytes (steps written out) still assembles, and a second
    // address on a descriptor without the indirect marker is refused by name.
    let gen = Gen::Cayman;
    let plain = asm_line(
        "ptr_multi_arith dst=0x20001000:[[256,16],[0,1],[1,1],[1,8]]",
        gen,
    )
    .unwrap();
    let marked = asm_line(
        "ptr_multi_arith dst=0x20001000|0x100:[[_,16],[_,1],[1,1],[1,8]]",
        gen,
    )
    .unwrap();
    assert_eq!(plain.encode(), marked.encode());
    let e = asm_line(
        "ptr_multi_arith dst=sbuf[p0]+0x0|0x100:[[_,16],[_,1],[1,1],[1,8]]",
        gen,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("indirect marker"), "{e}");
}
