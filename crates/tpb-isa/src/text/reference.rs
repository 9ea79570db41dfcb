//! The field tables of `docs/syntax.md`, generated from the wire layouts so they cannot
//! drift (a test compares the committed file with this output).

use super::schema::{always_printed, form_of, Form, CHANNELS_FIELD, FIELD_ALIASES, OPCODE_FIELD};
use crate::gen::Gen;
use crate::opcode::{Opcode, StructKind, OPCODES};
use crate::tables::{
    AccumCmd, AffineSelectCmp, AluOp, CodeEnum, DebugCmd, Dtype, ImmSrc, ReduceAxis, ReduceOp,
    RevOps, TensorSubdim, UpdateMode, WaitMode,
};
use crate::wire::{FieldDyn, FieldMeta, Instruction};
use std::fmt::Write;

/// Markdown tables of every field the syntax can set: the header and events, then one table
/// per operand struct with its mnemonics. Each row gives the field name, its bytes, how it is
/// written, its default (what an omitted field gets) and when `disasm` prints it. Then the
/// names of every enumeration, with the generations that define each value.
/// `docs/syntax.md` embeds this output between `<!-- BEGIN GENERATED field-reference -->`
/// and `<!-- END GENERATED field-reference -->`.
pub fn field_reference_markdown() -> String {
    let mut out = String::new();
    fields(&mut out);
    out.push_str("\n### Enumeration names\n");
    out.push_str(
        "\nA name is written, and read, only on the generations in its row (the one \
         declaration `disasm`, `decode`, JSON and `validate` all use); on any other generation \
         the value is written as its number (`0x24`), and the assembler reads the number and \
         refuses the name, saying which generations have it.\n",
    );
    enum_table::<Dtype>(&mut out);
    enum_table::<AluOp>(&mut out);
    enum_table::<AffineSelectCmp>(&mut out);
    enum_table::<TensorSubdim>(&mut out);
    enum_table::<RevOps>(&mut out);
    enum_table::<ImmSrc>(&mut out);
    enum_table::<AccumCmd>(&mut out);
    enum_table::<WaitMode>(&mut out);
    enum_table::<UpdateMode>(&mut out);
    enum_table::<DebugCmd>(&mut out);
    enum_table::<ReduceOp>(&mut out);
    enum_table::<ReduceAxis>(&mut out);
    out
}

fn enum_table<E: CodeEnum>(out: &mut String) {
    let _ = writeln!(out, "\n#### `{}`\n", E::KIND);
    out.push_str("| name | value | also accepted | generations |\n|---|---|---|---|\n");
    for r in E::table() {
        let aliases: Vec<String> = r.aliases.iter().map(|a| format!("`{a}`")).collect();
        let _ = writeln!(
            out,
            "| `{}` | {:#04x} | {} | {} |",
            r.name,
            r.value,
            aliases.join(", "),
            r.gens
        );
    }
}

fn fields(out: &mut String) {
    let any = Instruction::new(Opcode(OPCODES[0].value), Gen::default());
    out.push_str("### Fields\n\n#### Header and events (every instruction)\n\n");
    table_head(out);
    let preamble = any
        .header
        .fields()
        .into_iter()
        .chain(any.events.fields())
        .filter(|(m, _)| m.name != OPCODE_FIELD);
    for (meta, f) in preamble {
        row(out, meta, f, Gen::default());
    }
    let mut kinds: Vec<StructKind> = Vec::new();
    for r in OPCODES {
        if !kinds.contains(&r.kind) {
            kinds.push(r.kind);
        }
    }
    for kind in kinds {
        let rows: Vec<_> = OPCODES.iter().filter(|r| r.kind == kind).collect();
        let first = rows[0];
        let gen = first.gens.iter().next().unwrap_or_default();
        let mnemonics: Vec<String> = rows.iter().map(|r| format!("`{}`", r.mnemonic)).collect();
        let _ = writeln!(
            out,
            "\n#### `{}`: {}\n",
            kind.header_name(),
            mnemonics.join(", ")
        );
        table_head(out);
        let inst = Instruction::new(Opcode(first.value), gen);
        for (meta, f) in inst.body.fields() {
            row(out, meta, f, gen);
        }
    }
}

fn table_head(out: &mut String) {
    out.push_str("| field | short name | bytes | written as | default | printed by disasm |\n");
    out.push_str("|---|---|---|---|---|---|\n");
}

fn row(out: &mut String, meta: &FieldMeta, f: &dyn FieldDyn, gen: Gen) {
    let aliases: Vec<String> = FIELD_ALIASES
        .iter()
        .filter(|(_, targets)| targets.contains(&meta.name))
        .map(|(a, _)| format!("`{a}`"))
        .collect();
    let written = match form_of(f) {
        Form::Tensor(n) => format!("`ADDRESS:[[step,num],…]`, {n} slot(s), innermost first"),
        Form::Data4d => "`BASE:[[step,num],…]`, 4 slots, innermost first".to_string(),
        _ => f.expected_text(),
    };
    let printed = if meta.name == CHANNELS_FIELD {
        "always (as the partition range of an SBUF/PSUM operand when there is one)"
    } else if always_printed(meta, f) {
        "always"
    } else {
        "when not the default"
    };
    let range = meta.range();
    let bytes = if range.len() == 1 {
        format!("{}", range.start)
    } else {
        format!("{}..{}", range.start, range.end)
    };
    let _ = writeln!(
        out,
        "| `{}` | {} | {bytes} | {written} | `{}` | {printed} |",
        meta.name,
        aliases.join(", "),
        f.text(gen),
    );
}
