//! The plain disassembler (the reference for the fast one in `fast.rs`).

use super::imm_is_fp32;
use crate::gen::Gen;
use crate::opcode::OpcodeInfo;
use crate::tables::CodeEnum;
use crate::text::schema::{always_printed, CHANNELS_FIELD, OPCODE_FIELD};
use crate::wire::descriptor::f32_text;
use crate::wire::field::hex;
use crate::wire::{Addr4, EnumValue, Field, FieldDyn, FieldMeta, Instruction, TextRef};
use std::fmt::Write;

/// The plain disassembler, kept as the reference the fast one is tested against: it walks
/// the `dyn` field lists and formats each field through its `to_text`.
pub(super) fn line(inst: &Instruction, gen: Gen, out: &mut String) {
    match inst.opcode().info(gen) {
        Some(row) if inst.body.kind() == Some(row.kind) => structured(inst, row, gen, out),
        _ => out.push_str(&bundle_line(inst, gen)),
    }
}

fn structured(inst: &Instruction, row: &OpcodeInfo, gen: Gen, out: &mut String) {
    let default = Instruction::new(inst.opcode(), gen);
    // "Differs from the default" compared on the field's bytes, not its text: the text is a
    // function of the bytes and tells different bytes apart (asm(disasm(b)) == b, a property
    // test), so the answer is the same without formatting every field twice.
    let (mine, theirs) = (inst.encode(), default.encode());
    let differs = |m: &FieldMeta| mine[m.range()] != theirs[m.range()];
    out.push_str(row.mnemonic);
    let body = inst.body.fields();
    let channels = body
        .iter()
        .find(|(m, _)| m.name == CHANNELS_FIELD)
        .and_then(|(_, f)| match f.text_value() {
            TextRef::U8(n) => Some(n),
            _ => None,
        });
    // Fold the channel count into partition ranges when some operand can carry one.
    let folded = channels.filter(|_| {
        body.iter()
            .any(|(_, f)| tensor_addr(*f).is_some_and(|a| a.locate(gen).is_some()))
    });
    for (meta, f) in &body {
        if meta.name == CHANNELS_FIELD && folded.is_some() {
            continue;
        }
        if !always_printed(meta, *f) && !differs(meta) {
            continue;
        }
        out.push(' ');
        out.push_str(meta.name);
        out.push('=');
        if write_tensor(*f, gen, folded, out) {
            continue;
        }
        match f.text_value() {
            TextRef::Imm(v) if imm_is_fp32(inst, meta.name) => out.push_str(&f32_text(v.0)),
            TextRef::Enum(EnumValue::Dtype(d)) => {
                let _ = write!(out, "{}", d.on(gen));
            }
            TextRef::Enum(EnumValue::AluOp(op)) => {
                let _ = write!(out, "{}", op.on(gen));
            }
            _ => out.push_str(&f.text(gen)),
        }
    }
    let preamble = inst.events.fields().into_iter().chain(inst.header.fields());
    for (meta, f) in preamble {
        if meta.name != OPCODE_FIELD && differs(meta) {
            let _ = write!(out, " {}={}", meta.name, f.text(gen));
        }
    }
}

/// A descriptor's start address, whatever its N.
fn tensor_addr(f: &dyn FieldDyn) -> Option<Addr4> {
    match f.text_value() {
        TextRef::Tensor(t) => Some(t.start_addr),
        _ => None,
    }
}

/// Appends a descriptor's text (`ADDRESS:[[step,num],…]`) to `out`, if `f` is one.
fn write_tensor(f: &dyn FieldDyn, gen: Gen, channels: Option<u8>, out: &mut String) -> bool {
    let TextRef::Tensor(t) = f.text_value() else {
        return false;
    };
    if t.indirect.is_some() {
        // Two addresses, no channel fold: the field's own text form.
        out.push_str(&f.text(gen));
        return true;
    }
    let addr = t.start_addr;
    match (channels, addr.locate(gen)) {
        (Some(n), Some((space, p, off))) => {
            let mut digits = itoa::Buffer::new();
            out.push_str(space.name());
            out.push_str("[p");
            out.push_str(digits.format(p));
            out.push_str("..");
            out.push_str(digits.format(p + u32::from(n)));
            let _ = write!(out, "]+{off:#x}");
        }
        _ => out.push_str(&addr.to_text(gen)),
    }
    out.push_str(":[");
    let mut digits = itoa::Buffer::new();
    for (i, (s, n)) in t.step_elem.iter().zip(t.num_elem).enumerate() {
        out.push_str(if i == 0 { "[" } else { ",[" });
        out.push_str(digits.format(*s));
        out.push(',');
        out.push_str(digits.format(*n));
        out.push(']');
    }
    out.push(']');
    true
}

pub(super) fn bundle_line(inst: &Instruction, gen: Gen) -> String {
    let bytes = inst.encode();
    let words: Vec<String> = bytes.chunks(4).map(hex).collect();
    let opcode = inst.opcode();
    let what = match (opcode.row(), opcode.info(gen)) {
        (Some(r), None) => format!("{}: defined only on {}", r.display, r.gens),
        (Some(r), Some(_)) => format!("{}: body does not match the opcode", r.display),
        (None, _) => opcode.describe(),
    };
    format!(".bundle {}  # {what}", words.join(" "))
}
