//! The disassembler: one canonical line per instruction.

use super::schema::{always_printed, form_of, is_imm, Form, CHANNELS_FIELD, OPCODE_FIELD};
use crate::gen::Gen;
use crate::opcode::{AluClass, Form as ScalarForm, OpcodeInfo};
use crate::tables::ImmSrc;
use crate::wire::descriptor::f32_text;
use crate::wire::field::hex;
use crate::wire::{Addr4, Body, Field, FieldDyn, FieldMeta, ImmVal, Instruction, Tensor};
use std::fmt::Write;

/// Prints `inst` as one canonical line for `gen`; [`asm`](super::asm) reads it back to the
/// same 64 bytes.
///
/// The canonical form: the mnemonic, then the body fields in wire order under their header
/// names, then event and header fields. Operands (descriptors), dtypes, ALU ops and the
/// channel count are always printed; any other field only when it differs from
/// [`Instruction::new`]. When an operand's address lies in SBUF or PSUM, the channel count is
/// printed as its partition range (`sbuf[p0..128]+0x400`) instead of `num_active_channels=`.
/// Descriptors print every slot. An opcode with no struct on `gen`, or a body that does not
/// belong to its opcode, prints as `.bundle` with the bytes in hex and a comment naming it.
pub fn disasm(inst: &Instruction, gen: Gen) -> String {
    match inst.opcode().info(gen) {
        Some(row) if inst.body.kind() == Some(row.kind) => structured(inst, row, gen),
        _ => bundle_line(inst, gen),
    }
}

/// Prints a program: a `.gen` line, then one [`disasm`] line per instruction, each ending in
/// a newline.
pub fn disasm_program(insts: &[Instruction], gen: Gen) -> String {
    let mut s = format!(".gen {gen}\n");
    for i in insts {
        s.push_str(&disasm(i, gen));
        s.push('\n');
    }
    s
}

fn structured(inst: &Instruction, row: &OpcodeInfo, gen: Gen) -> String {
    let default = Instruction::new(inst.opcode(), gen);
    // "Differs from the default" compared on the field's bytes, not its text: the text is a
    // function of the bytes and tells different bytes apart (asm(disasm(b)) == b, a property
    // test), so the answer is the same without formatting every field twice.
    let (mine, theirs) = (inst.encode(), default.encode());
    let differs = |m: &FieldMeta| mine[m.range()] != theirs[m.range()];
    let mut out = String::from(row.mnemonic);
    let body = inst.body.fields();
    let channels = body
        .iter()
        .find(|(m, _)| m.name == CHANNELS_FIELD)
        .and_then(|(_, f)| f.as_any().downcast_ref::<u8>().copied());
    // Fold the channel count into partition ranges when some operand can carry one.
    let folded = channels.filter(|_| {
        body.iter()
            .any(|(_, f)| tensor_parts(*f).is_some_and(|t| t.0.locate(gen).is_some()))
    });
    for (meta, f) in &body {
        if meta.name == CHANNELS_FIELD && folded.is_some() {
            continue;
        }
        if !always_printed(meta, *f) && !differs(meta) {
            continue;
        }
        let text = match form_of(*f) {
            Form::Tensor(_) => tensor_text(*f, gen, folded),
            _ if is_imm(*f) && imm_is_fp32(inst, meta.name) => {
                let bits = f.as_any().downcast_ref::<ImmVal>().map_or(0, |v| v.0);
                f32_text(bits)
            }
            _ => f.text(gen),
        };
        let _ = write!(out, " {}={text}", meta.name);
    }
    let preamble = inst.events.fields().into_iter().chain(inst.header.fields());
    for (meta, f) in preamble {
        if meta.name != OPCODE_FIELD && differs(meta) {
            let _ = write!(out, " {}={}", meta.name, f.text(gen));
        }
    }
    out
}

/// Whether an immediate is an FP32 value in this instruction (so it reads better as a float):
/// TensorScalarArith immediates and RangeSelect bounds taken from the instruction itself.
/// (TensorScalarPtr's immediates are always pointers, isa-facts §7.)
fn imm_is_fp32(inst: &Instruction, field: &str) -> bool {
    match &inst.body {
        Body::S3d3Ts(s)
            if inst
                .opcode()
                .row()
                .is_some_and(|r| r.alu == AluClass::Arith && r.form == ScalarForm::Immediate) =>
        {
            match field {
                "imm0" => s.imm0_src == ImmSrc::INSTRUCTION,
                "imm1" => s.imm1_src == ImmSrc::INSTRUCTION,
                _ => false,
            }
        }
        Body::S2d2Rs(s) => match field {
            "bound0" => s.bound0_src == ImmSrc::INSTRUCTION,
            "bound1" => s.bound1_src == ImmSrc::INSTRUCTION,
            _ => false,
        },
        _ => false,
    }
}

/// A descriptor's address and slots, whatever its N.
pub(crate) fn tensor_parts(f: &dyn FieldDyn) -> Option<(Addr4, Vec<i16>, Vec<u16>)> {
    fn get<const N: usize>(f: &dyn FieldDyn) -> Option<(Addr4, Vec<i16>, Vec<u16>)> {
        f.as_any()
            .downcast_ref::<Tensor<N>>()
            .map(|t| (t.start_addr, t.step_elem.to_vec(), t.num_elem.to_vec()))
    }
    get::<1>(f)
        .or_else(|| get::<2>(f))
        .or_else(|| get::<3>(f))
        .or_else(|| get::<4>(f))
}

fn tensor_text(f: &dyn FieldDyn, gen: Gen, channels: Option<u8>) -> String {
    let Some((addr, steps, nums)) = tensor_parts(f) else {
        return f.text(gen);
    };
    let address = match (channels, addr.locate(gen)) {
        (Some(n), Some((space, p, off))) => {
            format!("{}[p{p}..{}]+{off:#x}", space.name(), p + u32::from(n))
        }
        _ => addr.to_text(gen),
    };
    let pairs: Vec<String> = steps
        .iter()
        .zip(&nums)
        .map(|(s, n)| format!("[{s},{n}]"))
        .collect();
    format!("{address}:[{}]", pairs.join(","))
}

fn bundle_line(inst: &Instruction, gen: Gen) -> String {
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
