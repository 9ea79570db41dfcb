//! Writes a large, valid text program to stdout for timing the assembler end to end
//! (`tpb asm`, `tpb run`): N lines cycling through the bench's compiler-like templates, each
//! with its own `semaphore_value`, in the canonical form `tpb disasm` prints.
//!
//! ```sh
//! cargo run --release -p tpb-isa --example asm_program -- 1000000 > /tmp/p1m.tpb
//! /usr/bin/time -v target/release/tpb asm /tmp/p1m.tpb -o /tmp/p1m.bin
//! ```

#[path = "../tests/support/templates.rs"]
mod templates;

use std::io::Write;
use tpb_isa::text::{asm_line, disasm_into};
use tpb_isa::Gen;

fn main() -> std::io::Result<()> {
    let n: usize = match std::env::args().nth(1).map(|a| a.parse()) {
        None => 1_000_000,
        Some(Ok(n)) => n,
        Some(Err(_)) => {
            eprintln!("usage: asm_program [LINES]");
            std::process::exit(2);
        }
    };
    let gen = Gen::Cayman;
    let templates: Vec<_> = templates::TEMPLATES
        .iter()
        .map(|l| asm_line(l, gen).expect("template assembles"))
        .collect();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    writeln!(out, ".gen {gen}")?;
    let mut line = String::new();
    for i in 0..n {
        let mut inst = templates[i % templates.len()];
        inst.events.semaphore_value = i as u32;
        line.clear();
        disasm_into(&inst, gen, &mut line);
        line.push('\n');
        out.write_all(line.as_bytes())?;
    }
    out.flush()
}
