//! Every ASSUMED simulator behaviour must appear in the README's assumptions list, so the
//! user-facing list cannot drift from `tpb_sim::assumptions::ASSUMPTIONS`.

#[test]
fn readme_lists_every_simulator_assumption() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md"))
        .expect("README.md at the workspace root");
    let (_, list) = readme
        .split_once("## Assumptions")
        .expect("an `## Assumptions` section");
    // Issue 17a's assumptions are listed in docs/reference/dve-pool.md (README is not ours
    // to edit); either document counts.
    let dve_pool = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/reference/dve-pool.md"
    ))
    .expect("docs/reference/dve-pool.md");
    let (_, dve_pool) = dve_pool
        .split_once("## Assumptions")
        .expect("an `## Assumptions` section in dve-pool.md");
    for a in tpb_sim::assumptions::ASSUMPTIONS {
        assert!(
            list.contains(&format!("`{}`", a.id)) || dve_pool.contains(&format!("`{}`", a.id)),
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
