//! Every ASSUMED simulator behaviour must appear in the project's assumptions list
//! (docs/reference/assumptions.md), so the user-facing list cannot drift from
//! `tpb_sim::assumptions::ASSUMPTIONS`.

fn assumptions_doc() -> String {
    let mut list = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/reference/assumptions.md"
    ))
    .expect("docs/reference/assumptions.md in the workspace");
    // Issue 17a lists its choices in docs/reference/dve-pool.md's "Assumptions" section.
    let dve_pool = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/reference/dve-pool.md"
    ))
    .unwrap_or_default();
    if let Some((_, section)) = dve_pool.split_once("## Assumptions") {
        list.push_str(section);
    }
    list
}

#[test]
fn the_assumptions_list_names_every_simulator_assumption() {
    let list = assumptions_doc();
    for a in tpb_sim::assumptions::ASSUMPTIONS {
        assert!(
            list.contains(&format!("`{}`", a.id)),
            "docs/reference/assumptions.md lacks `{}`",
            a.id
        );
    }
}

/// Every timing-model constant is in the assumptions' timing table with its default and
/// unit, so the documented model is the one the scheduler runs.
#[test]
fn the_assumptions_list_gives_every_timing_constant_with_its_default() {
    let list = assumptions_doc();
    for c in tpb_sim::assumptions::TIMING_CONSTANTS {
        let row = format!(
            "| `{}` | {} | {} | {} |",
            c.name, c.default, c.unit, c.source
        );
        assert!(
            list.contains(&row),
            "docs/reference/assumptions.md's timing table lacks {row}"
        );
    }
}
