//! The README's opcode table ("What is modelled") is the one generated from the opcode list
//! (`tpb_isa::opcode_doc::opcode_table_markdown`), so it cannot drift from what tpb decodes,
//! validates and runs. `TPB_BLESS=1 cargo test -p tpb-isa --test readme_opcodes` rewrites it.

#[path = "support/golden.rs"]
mod golden;

const BEGIN: &str = "<!-- opcode-table:begin";
const END: &str = "<!-- opcode-table:end -->";

#[test]
fn readme_opcode_table_is_generated_from_the_opcode_list() {
    // The one writer of README.md.
    let path = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md"));
    golden::check_region(
        path,
        BEGIN,
        END,
        &tpb_isa::opcode_doc::opcode_table_markdown(),
        "TPB_BLESS=1 cargo test -p tpb-isa --test readme_opcodes",
    );
}
