//! The opcode table as Markdown, generated from [`OPCODES`] (the one opcode list) for the
//! README's "What is modelled" section, and the opcodes sharing a behaviour for
//! docs/syntax.md; `tests/readme_opcodes.rs` and `tests/text_docs.rs` keep the docs' copies
//! equal to them (`TPB_BLESS=1` rewrites them).

use crate::opcode::{
    stub_firmware_known, Engine, Exec, Maintenance, OpcodeInfo, Sem, KNOWN_UNMODELLED, OPCODES,
};
use std::fmt::Write;

/// The Markdown table of every modelled opcode (value, mnemonic, name, struct, engine,
/// generations, the header's maintenance flag, what `tpb run` does with it), followed by a
/// line naming the known opcodes that decode as opaque bundles.
pub fn opcode_table_markdown() -> String {
    let mut s = String::from(
        "| opcode | mnemonic | instruction | struct | engine | generations | header says | `tpb run` |\n\
         |---|---|---|---|---|---|---|---|\n",
    );
    for r in OPCODES {
        let engine = match r.engine {
            Engine::Dve => "DVE",
            Engine::Pool => "POOL",
            Engine::Any => "any",
            Engine::Pe => "PE",
            Engine::Act => "ACT",
            Engine::Dma => "SP/ACT/POOL → DMA queue",
            Engine::Host => "host (lowered)",
            Engine::DveOrPool => "DVE or POOL",
        };
        // The stub evidence is per generation (`stub_firmware_known`, issue 16 item 6).
        let stubbed: Vec<&str> = r
            .gens
            .iter()
            .filter(|&g| stub_firmware_known(g))
            .map(|g| g.name())
            .collect();
        let header = match r.maintenance {
            Maintenance::Maintained => "maintained".to_string(),
            Maintenance::DeprecatedWorking => "deprecated, working".to_string(),
            Maintenance::NotMaintained if stubbed.is_empty() => {
                "not maintained (firmware worker not public)".to_string()
            }
            Maintenance::NotMaintained => {
                format!(
                    "not maintained; log-only firmware stub on {}",
                    stubbed.join(", ")
                )
            }
            Maintenance::NotGiven => "not given".to_string(),
        };
        let run = match r.exec {
            Exec::Run => "runs",
            Exec::Disabled(_) => "refused: disabled on hardware (`validate` lint)",
            Exec::NotSupported(_) => {
                "refused: facts not public or state not modelled (`tpb explain` names them)"
            }
        };
        // Infallible: writing to a String.
        let _ = writeln!(
            s,
            "| 0x{:02X} | `{}` | {} | {} | {} | {} | {} | {} |",
            r.value,
            r.mnemonic,
            r.display,
            r.kind.header_name(),
            engine,
            r.gens,
            header,
            run
        );
    }
    let others: Vec<String> = KNOWN_UNMODELLED
        .iter()
        .map(|(v, name)| format!("0x{v:02X} {name}"))
        .collect();
    let _ = write!(
        s,
        "\nAny other opcode (such as {}) decodes as an opaque bundle (header, events, raw body) \
         that round-trips bit for bit; `validate` reports it as not modelled.\n",
        others.join(", ")
    );
    s
}

/// The opcodes that share a behaviour (the same `Family(Variant)`: alias rows), as Markdown
/// for docs/syntax.md's "One example per opcode": each group's documented example serves its
/// other opcodes under their mnemonics, so an alias row needs no example of its own.
pub fn shared_behaviours_markdown() -> String {
    shared_behaviours_of(OPCODES)
}

fn shared_behaviours_of(rows: &[OpcodeInfo]) -> String {
    let mut groups: Vec<(Sem, Vec<&OpcodeInfo>)> = Vec::new();
    for r in rows {
        match groups.iter_mut().find(|(sem, _)| *sem == r.sem) {
            Some((_, rows)) => rows.push(r),
            None => groups.push((r.sem, vec![r])),
        }
    }
    groups.retain(|(_, rows)| rows.len() > 1);
    if groups.is_empty() {
        return "No two opcodes share a behaviour today.\n".to_string();
    }
    let mut s = String::from("| behaviour | opcodes |\n|---|---|\n");
    for (sem, rows) in groups {
        let names: Vec<String> = rows
            .iter()
            .map(|r| format!("0x{:02X} `{}`", r.value, r.mnemonic))
            .collect();
        // Infallible: writing to a String.
        let _ = writeln!(s, "| `{sem:?}` | {} |", names.join(", "));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_behaviours_lists_exactly_the_rows_whose_behaviour_another_row_has() {
        let t = shared_behaviours_markdown();
        for r in OPCODES {
            let shared = OPCODES.iter().filter(|o| o.sem == r.sem).count() > 1;
            assert_eq!(
                t.contains(&format!("`{}`", r.mnemonic)),
                shared,
                "{}: {t}",
                r.mnemonic
            );
        }
        assert_eq!(
            t.starts_with("No two opcodes"),
            !t.contains("| `"),
            "either the table or the sentence: {t}"
        );
    }

    #[test]
    fn an_alias_row_is_listed_with_its_twin() {
        let twin = *OPCODES
            .iter()
            .find(|r| r.mnemonic == "find_index8")
            .unwrap();
        let mut alias = twin;
        alias.value = 0x66;
        alias.mnemonic = "find_index8_alias";
        let mut rows: Vec<OpcodeInfo> = OPCODES.to_vec();
        rows.push(alias);
        let t = shared_behaviours_of(&rows);
        assert_eq!(
            t.lines()
                .filter(|l| l.starts_with("| `"))
                .collect::<Vec<_>>(),
            ["| `Search(FindIndex8)` | 0x6E `find_index8`, 0x66 `find_index8_alias` |"],
            "{t}"
        );
        // Without it, no row shares a behaviour (unless the test-only alias row is built in).
        if OPCODES.iter().filter(|r| r.sem == twin.sem).count() == 1 {
            assert_eq!(
                shared_behaviours_of(OPCODES),
                "No two opcodes share a behaviour today.\n"
            );
        }
    }

    #[test]
    fn one_row_per_opcode_and_every_unmodelled_name() {
        let t = opcode_table_markdown();
        let rows = t.lines().filter(|l| l.starts_with("| 0x")).count();
        assert_eq!(rows, OPCODES.len());
        // The "any other opcode" examples are opcodes the table does not model.
        for (v, name) in KNOWN_UNMODELLED {
            assert!(
                OPCODES.iter().all(|r| r.value != *v),
                "{name} ({v:#04x}) is modelled"
            );
        }
        assert!(t.contains("| 0x92 | `affine_select` | TensorScalarAffineSelect | S2D2_TS_AS | POOL | all generations |"));
        assert!(t.contains(
            "| 0xBC | `range_select` | RangeSelect | S2D2_RS | DVE | cayman, mariana, maverick |"
        ));
        // Issue 16 item 6: the stub column is per generation (none known on sunda).
        let row = |v: &str| t.lines().find(|l| l.starts_with(v)).unwrap_or_default();
        assert!(row("| 0x4F ").contains("log-only firmware stub on cayman, mariana, maverick"));
        assert!(row("| 0x87 ").contains("not maintained (firmware worker not public)"));
        for (_, name) in KNOWN_UNMODELLED {
            assert!(t.contains(name), "{name}");
        }
    }
}
