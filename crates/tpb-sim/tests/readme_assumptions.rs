//! Every ASSUMED simulator behaviour must appear in the README's assumptions list, so the
//! user-facing list cannot drift from `tpb_sim::assumptions::ASSUMPTIONS`.

/// The user-facing assumptions list: the README's section plus every
/// `docs/reference/assumptions*.md` page (issue 17b keeps its entries there, so that the
/// README, being rewritten elsewhere, is not edited).
fn assumptions_list() -> String {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let readme = std::fs::read_to_string(format!("{root}/README.md"))
        .expect("README.md at the workspace root");
    let (_, list) = readme
        .split_once("## Assumptions")
        .expect("an `## Assumptions` section");
    let mut all = list.to_string();
    let dir = std::fs::read_dir(format!("{root}/docs/reference")).expect("docs/reference");
    for e in dir.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with("assumptions") && name.ends_with(".md") {
            all.push_str(&std::fs::read_to_string(e.path()).expect("readable page"));
        }
    }
    // Issue 17a's assumptions are listed in docs/reference/dve-pool.md.
    let dve_pool = std::fs::read_to_string(format!("{root}/docs/reference/dve-pool.md"))
        .expect("docs/reference/dve-pool.md");
    if let Some((_, section)) = dve_pool.split_once("## Assumptions") {
        all.push_str(section);
    }
    all
}

#[test]
fn readme_lists_every_simulator_assumption() {
    let list = assumptions_list();
    for a in tpb_sim::assumptions::ASSUMPTIONS {
        assert!(
            list.contains(&format!("`{}`", a.id)),
            "README's assumptions list lacks `{}`",
            a.id
        );
    }
}

/// Every timing-model constant is in the README's table with its default and unit, so the
/// documented model is the one the scheduler runs.
#[test]
fn readme_lists_every_timing_constant_with_its_default() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md"))
        .expect("README.md at the workspace root");
    let (_, list) = readme
        .split_once("## Assumptions")
        .expect("an `## Assumptions` section");
    for c in tpb_sim::assumptions::TIMING_CONSTANTS {
        let row = format!(
            "| `{}` | {} | {} | {} |",
            c.name, c.default, c.unit, c.source
        );
        assert!(list.contains(&row), "README's timing table lacks {row}");
    }
}
