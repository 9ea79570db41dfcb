//! The disassembler: one canonical line per instruction.
//!
//! Two implementations print the same bytes: `fast` (the one every public function uses: a
//! formatter generated per wire struct that writes straight into the caller's buffer) and
//! `plain` (the original walk over the `dyn` field lists, kept as the reference:
//! [`disasm_plain`], checked against the fast one by a differential property test).

mod fast;
mod line;
mod plain;

use crate::gen::Gen;
use crate::opcode::{AluClass, Form as ScalarForm};
use crate::wire::Instruction;

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
    let mut out = String::with_capacity(fast::LINE_RESERVE);
    disasm_into(inst, gen, &mut out);
    out
}

/// [`disasm`] appended to `out`, without a newline: a program is printed into one buffer,
/// and a caller that reuses `out` allocates nothing per line.
pub fn disasm_into(inst: &Instruction, gen: Gen, out: &mut String) {
    fast::line(inst, gen, out);
}

/// [`disasm_into`] for a byte buffer (what a writer streams to a file or a pipe).
pub fn disasm_into_bytes(inst: &Instruction, gen: Gen, out: &mut Vec<u8>) {
    fast::line(inst, gen, out);
}

/// Prints a program: a `.gen` line, then one [`disasm`] line per instruction, each ending in
/// a newline.
pub fn disasm_program(insts: &[Instruction], gen: Gen) -> String {
    let mut s = String::with_capacity(16 + insts.len() * fast::LINE_RESERVE);
    s.push_str(".gen ");
    s.push_str(gen.name());
    s.push('\n');
    for i in insts {
        disasm_into(i, gen, &mut s);
        s.push('\n');
    }
    s
}

/// The plain disassembler: the same line as [`disasm`], made by walking the `dyn` field
/// lists and each field's `to_text`. Slow (about 30 × [`disasm`]) and simple; kept as the
/// reference that the fast formatter is tested against.
pub fn disasm_plain(inst: &Instruction, gen: Gen) -> String {
    let mut out = String::new();
    plain::line(inst, gen, &mut out);
    out
}

/// Whether an immediate is an FP32 value in this instruction (so it reads better as a float):
/// the field is declared `[fp32 when SRC]` in its `wire_struct!` (TensorScalar's immediates,
/// RangeSelect's bounds) and says it is carried by the instruction, and the opcode does not
/// make it an integer (a bit-vector op) or a pointer (TensorScalarPtr, isa-facts §7).
fn imm_is_fp32(inst: &Instruction, field: &str) -> bool {
    inst.opcode()
        .row()
        .is_some_and(|r| r.alu != AluClass::Bitvec && r.form != ScalarForm::Pointer)
        && inst.body.fp32_field(field)
}
