//! The README's opcode table ("What is modelled") is the one generated from the opcode list
//! (`tpb_isa::opcode_doc::opcode_table_markdown`), so it cannot drift from what tpb decodes,
//! validates and runs. `TPB_BLESS=1 cargo test -p tpb-isa --test readme_opcodes` rewrites it.

const BEGIN: &str = "<!-- opcode-table:begin";
const END: &str = "<!-- opcode-table:end -->";

#[test]
fn readme_opcode_table_is_generated_from_the_opcode_list() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md");
    let readme = std::fs::read_to_string(path).expect("README.md at the workspace root");
    let start = readme
        .find(BEGIN)
        .expect("an opcode-table:begin marker in README.md");
    let body_start = start + readme[start..].find("-->\n").expect("the marker's end") + 4;
    let end = readme
        .find(END)
        .expect("an opcode-table:end marker in README.md");
    let want = tpb_isa::opcode_doc::opcode_table_markdown();
    if readme[body_start..end] == want {
        return;
    }
    if std::env::var_os("TPB_BLESS").is_some_and(|v| v == "1") {
        let blessed = format!("{}{want}{}", &readme[..body_start], &readme[end..]);
        std::fs::write(path, blessed).expect("rewrite README.md");
        return;
    }
    panic!(
        "README.md's opcode table differs from the opcode list; run \
         `TPB_BLESS=1 cargo test -p tpb-isa --test readme_opcodes` and commit README.md.\n\
         Generated:\n{want}"
    );
}
