//! The fuzz setup CI relies on (issue 20 item 20): `fuzz/run-stable.sh` builds `--locked`,
//! and every target of `fuzz/Cargo.toml` is run by `.ci/run` and described in
//! `fuzz/README.md`, including the multi-engine runner and the Python-facing region/array
//! conversion.

use std::path::Path;

fn read(rel: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    std::fs::read_to_string(root.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// The `name = "…"` of every `[[bin]]` in the fuzz manifest.
fn targets() -> Vec<String> {
    let manifest = read("fuzz/Cargo.toml");
    manifest
        .split("[[bin]]")
        .skip(1)
        .filter_map(|b| {
            let line = b.lines().find(|l| l.trim_start().starts_with("name"))?;
            Some(line.split('"').nth(1)?.to_string())
        })
        .collect()
}

#[test]
fn the_fuzz_build_is_locked() {
    let script = read("fuzz/run-stable.sh");
    let build = script
        .lines()
        .find(|l| l.contains("cargo build"))
        .expect("run-stable.sh builds with cargo");
    assert!(build.contains("--locked"), "{build}");
}

#[test]
fn every_fuzz_target_runs_in_ci_and_is_documented() {
    let targets = targets();
    for wanted in ["machine_step", "npy_region", "run_engines", "region_array"] {
        assert!(
            targets.iter().any(|t| t == wanted),
            "no target {wanted}: {targets:?}"
        );
    }
    let ci = read(".ci/run");
    let lp = ci
        .lines()
        .find(|l| l.starts_with("for target in"))
        .expect(".ci/run loops over the fuzz targets");
    let readme = read("fuzz/README.md");
    for t in &targets {
        assert!(
            lp.split_whitespace().any(|w| w.trim_end_matches(';') == t),
            ".ci/run skips {t}: {lp}"
        );
        assert!(
            readme.contains(&format!("| `{t}` |")),
            "fuzz/README.md skips {t}"
        );
    }
}

// Issue 18 item 7: the fuzz targets mutate the bundles of docs/syntax.md's examples
// (fuzz/src/lib.rs `seeds`, each line assembled for the first generation of cayman, sunda,
// mariana, maverick that accepts it): every PE, ACT and DMA opcode must be among them.
#[test]
fn fuzz_seeds_cover_the_pe_act_dma_opcodes() {
    use tpb_isa::text::{asm, AsmOptions};
    use tpb_isa::Gen;
    let doc = read("docs/syntax.md");
    let mut opcodes = std::collections::BTreeSet::new();
    let mut inside = false;
    for line in doc.lines() {
        if line.starts_with("```") {
            inside = line == "```tpb";
            continue;
        }
        let code = line.trim();
        if !inside || code.is_empty() || code.starts_with(['#', ';', '.']) {
            continue;
        }
        for gen in [Gen::Cayman, Gen::Sunda, Gen::Mariana, Gen::Maverick] {
            if let Ok(a) = asm(code, &AsmOptions::new(gen)) {
                opcodes.extend(a.insts().iter().map(|i| i.encode()[0]));
                break;
            }
        }
    }
    let wanted = [
        0x01, 0x02, 0x21, 0x22, 0x24, 0x25, 0x30, 0xAA, 0xAB, 0xB8, 0xB9, 0xBA, 0xBB, 0xBD, 0xD4,
        0xDA, 0xF1,
    ];
    let missing: Vec<String> = wanted
        .iter()
        .filter(|o| !opcodes.contains(o))
        .map(|o| format!("{o:#04x}"))
        .collect();
    assert!(missing.is_empty(), "no fuzz seed for {missing:?}");
}
