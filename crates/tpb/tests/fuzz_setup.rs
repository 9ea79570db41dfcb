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
        .find(|l| l.trim_start().starts_with("for target in"))
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

/// The `dependencies = [...]` of package `name` in a Cargo.lock (`name` or `name version`).
fn locked_dependencies(lock: &str, name: &str) -> Vec<String> {
    let block = lock
        .split("[[package]]")
        .find(|b| b.lines().any(|l| l.trim() == format!("name = \"{name}\"")))
        .unwrap_or_else(|| panic!("no package {name} in the lock"));
    let deps = block.split("dependencies = [").nth(1).unwrap_or("]");
    deps.split(']')
        .next()
        .unwrap_or("")
        .lines()
        .map(|l| l.trim().trim_end_matches(',').trim_matches('"').to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

/// The names under `[dependencies]` in a crate's manifest.
fn manifest_dependencies(manifest: &str) -> Vec<String> {
    let body = manifest.split("[dependencies]").nth(1).unwrap_or("");
    body.lines()
        .take_while(|l| !l.starts_with('['))
        .filter(|l| !l.trim_start().starts_with('#') && l.contains('='))
        .map(|l| l.split(['.', '=', ' ']).next().unwrap_or("").to_string())
        .filter(|n| !n.is_empty())
        .collect()
}

// `--locked` fails when a workspace crate gains a dependency and fuzz/Cargo.lock is not
// refreshed (tpb-sim's libm did that): every dependency of the crates the fuzz crate builds
// must be in its lock.
#[test]
fn the_fuzz_lock_is_current_for_the_workspace_crates() {
    let fuzz = read("fuzz/Cargo.lock");
    for name in ["tpb", "tpb-isa", "tpb-sim"] {
        let locked = locked_dependencies(&fuzz, name);
        let wanted = manifest_dependencies(&read(&format!("crates/{name}/Cargo.toml")));
        assert!(!wanted.is_empty(), "{name}: no [dependencies] read");
        for dep in wanted {
            assert!(
                locked
                    .iter()
                    .any(|l| l == &dep || l.starts_with(&format!("{dep} "))),
                "fuzz/Cargo.lock is stale: {name} depends on {dep}; run `cargo metadata \
                 --format-version 1 --manifest-path fuzz/Cargo.toml`"
            );
        }
    }
}

// Issue 29: `run_engines` starts from each multi-engine example as an input. A pick byte with
// the high bit set names an instruction of the examples, counted through them in the order
// fuzz/src/lib.rs lists them (ENGINE_EXAMPLES); each seed file is one example: generation
// byte 1 (cayman, Gen::ALL[1]), two timing bytes, then each instruction's pick and a zero
// control byte (the example's own engine and EVENTS, no edits).
#[test]
fn the_run_engines_seeds_are_the_engine_examples() {
    use tpb_isa::text::{asm, AsmOptions};
    let lib = read("fuzz/src/lib.rs");
    let names: Vec<&str> = lib
        .split("include_str!(\"../../examples/engines/")
        .skip(1)
        .filter_map(|s| s.split(".tpb\")").next())
        .collect();
    assert_eq!(names.len(), 5, "{names:?}");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut offset = 0;
    for name in names {
        let text = read(&format!("examples/engines/{name}.tpb"));
        let opts = AsmOptions::new(tpb_isa::Gen::Cayman)
            .allow_directives(tpb::cmd::run::program::DIRECTIVES);
        let n = asm(&text, &opts).unwrap().insts().len();
        let mut want = vec![1u8, 0, 0];
        for i in offset..offset + n {
            want.extend([0x80 | u8::try_from(i).unwrap(), 0]);
        }
        let seed = std::fs::read(root.join(format!("fuzz/seeds/run_engines/{name}"))).unwrap();
        assert_eq!(seed, want, "fuzz/seeds/run_engines/{name}");
        offset += n;
    }
    assert!(
        offset <= 0x80,
        "a pick byte names at most 128 example instructions"
    );
}
