//! Every ASSUMED simulator behaviour must appear in the README's assumptions list, so the
//! user-facing list cannot drift from `tpb_sim::assumptions::ASSUMPTIONS`.

fn dma_reference() -> String {
    std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/reference/dma.md"
    ))
    .expect("docs/reference/dma.md")
}

#[test]
fn readme_lists_every_simulator_assumption() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md"))
        .expect("README.md at the workspace root");
    let (_, list) = readme
        .split_once("## Assumptions")
        .expect("an `## Assumptions` section");
    // The DMA/HBM assumptions are listed in docs/reference/dma.md until the list moves to
    // docs/reference/assumptions.md.
    let list = format!("{list}\n{}", dma_reference());
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
    let list = format!("{list}\n{}", dma_reference());
    for c in tpb_sim::assumptions::TIMING_CONSTANTS {
        let row = format!(
            "| `{}` | {} | {} | {} |",
            c.name, c.default, c.unit, c.source
        );
        assert!(list.contains(&row), "README's timing table lacks {row}");
    }
}
