//! The fast disassembler: a formatter per wire struct, generated from the struct's own field
//! list (`wire_struct!`'s `visit_fields`, with every field's static type), that appends one
//! line to the caller's buffer: no allocation per line, no `core::fmt`, table lookups for
//! enumeration names, `itoa` for integers, a dedicated path for floats. It prints exactly
//! what `plain.rs` prints (a differential property test checks it on every generation).
//!
//! The field-type dispatch below matches each field's [`TextRef`] (its written form, which
//! every field type must give): after inlining on a known type the match is one arm, so
//! each struct's formatter is straight-line code.

use super::imm_is_fp32;
use super::line::{Line, NameTable, Sink};
use super::plain::bundle_line;
use crate::gen::Gen;
use crate::geometry::NUM_REGISTERS;
use crate::opcode::OpcodeInfo;
use crate::tables::{
    AccumCmd, ActFunc, AffineSelectCmp, AluOp, DataSrc, DebugCmd, DgeComputeOp, DgeOpcode, Dtype,
    ImmSrc, ImmSrcN, PeFp32Mode, PeSeedMode, ReduceAxis, ReduceCmd, ReduceOp, RevOps, TensorSubdim,
    UpdateMode, WaitMode,
};
use crate::text::schema::{always_printed_ref, for_each_enum_field, CHANNELS_FIELD, OPCODE_FIELD};
use crate::wire::descriptor::f32_text;
use crate::wire::descriptor::{INDIRECT_HOLES, INDIRECT_SEPARATOR};
use crate::wire::{
    Addr4, AddrForm, Body, EnumValue, Field, FieldVisitor, Instruction, TensorRef, TextRef,
};

/// Room a caller reserves for one line (the longest structured lines are about 350 bytes).
pub(super) const LINE_RESERVE: usize = 384;

/// Appends the line for `inst` (see [`super::disasm`]).
pub(super) fn line<S: Sink>(inst: &Instruction, gen: Gen, out: &mut S) {
    match inst.opcode().info(gen) {
        Some(row) if inst.body.kind() == Some(row.kind) => {
            structured(inst, row, gen, out);
        }
        _ => bundle(inst, gen, out),
    }
}

/// The structured line.
fn structured<S: Sink>(inst: &Instruction, row: &OpcodeInfo, gen: Gen, out: &mut S) {
    // The channel count folds into partition ranges when some operand can carry one; the
    // operands may come before the count, so a first pass finds both.
    let mut scan = Scan {
        gen,
        channels: None,
        locatable: false,
    };
    visit_body(&inst.body, &mut scan);
    // The line buffer is built in place (moving it would copy it).
    let mut w = Writer {
        inst,
        gen,
        folded: scan.channels.filter(|_| scan.locatable),
        preamble: false,
        out: Line::new(out),
    };
    w.out.put(row.mnemonic);
    visit_body(&inst.body, &mut w);
    // Event and header fields print only where they differ from a fresh instruction's.
    let base = Instruction::new(inst.opcode(), gen);
    w.preamble = true;
    inst.events.visit_fields(&base.events, &mut w);
    inst.header.visit_fields(&base.header, &mut w);
    w.out.finish();
}

/// A body struct whose fields a visitor can walk beside a default body's.
trait VisitBody {
    fn visit_body<V: FieldVisitor>(&self, v: &mut V);
}

/// One struct's walk as a function of its own: every field of that struct inlined, one
/// call per struct and pass.
#[inline(never)]
fn visit_struct<B: VisitBody, V: FieldVisitor>(body: &B, v: &mut V) {
    body.visit_body(v);
}

macro_rules! visit_body {
    ($( $S:ident, $hn:literal, $what:literal; )*) => {
        $(
            impl VisitBody for crate::wire::$S {
                #[inline(always)]
                fn visit_body<V: FieldVisitor>(&self, v: &mut V) {
                    self.visit_fields(&Self::default(), v);
                }
            }
        )*

        /// The body's fields, beside a default body's (what [`Instruction::new`] holds).
        fn visit_body<V: FieldVisitor>(body: &Body, v: &mut V) {
            match body {
                $( Body::$S(s) => visit_struct(s, v), )*
                Body::Opaque(s) => s.visit_fields(&crate::wire::Opaque::default(), v),
            }
        }
    };
}
crate::for_each_struct!(visit_body);

/// The first pass: the channel count, and whether an operand address lies in SBUF or PSUM.
struct Scan {
    gen: Gen,
    channels: Option<u8>,
    locatable: bool,
}

impl FieldVisitor for Scan {
    #[inline(always)]
    fn field<T: Field>(&mut self, name: &'static str, value: &T, _: &T) {
        match value.text_ref() {
            TextRef::U8(n) if name == CHANNELS_FIELD => self.channels = Some(n),
            TextRef::Tensor(t) => self.locatable |= t.start_addr.locate(self.gen).is_some(),
            _ => {}
        }
    }
}

/// The second pass: writes ` name=value` for each printed field.
struct Writer<'a, 'o, S: Sink> {
    inst: &'a Instruction,
    gen: Gen,
    /// The channel count, when it is printed as partition ranges.
    folded: Option<u8>,
    /// Walking the events and header: only fields that differ print.
    preamble: bool,
    out: Line<'o, S>,
}

impl<S: Sink> FieldVisitor for Writer<'_, '_, S> {
    #[inline(always)]
    fn field<T: Field>(&mut self, name: &'static str, value: &T, base: &T) {
        let printed = if self.preamble {
            name != OPCODE_FIELD && value != base
        } else if name == CHANNELS_FIELD && self.folded.is_some() {
            false
        } else {
            always_printed_ref(name, &value.text_ref()) || value != base
        };
        if printed {
            self.out.key(name);
            self.value(name, value);
        }
    }
}

impl<S: Sink> Writer<'_, '_, S> {
    /// The field's text: what its `to_text` gives (or, for descriptors and fp32
    /// immediates, what `plain.rs` prints in its place). Exhaustive over the written forms;
    /// on a known field type the match is one arm.
    #[inline(always)]
    fn value<T: Field>(&mut self, name: &'static str, v: &T) {
        let out = &mut self.out;
        match v.text_ref() {
            TextRef::Tensor(t) => tensor(&t, self.gen, self.folded, out),
            TextRef::Data4d(d) => {
                out.signed(d.base);
                out.byte(b':');
                pairs(&d.step_elem, &d.num_elem, out);
            }
            TextRef::Imm(i) => {
                if imm_is_fp32(self.inst, name) {
                    float(i.0, out);
                } else {
                    out.hex(i.0, 1);
                }
            }
            TextRef::F32(f) => float(f.0, out),
            TextRef::U8(n) => out.dec(u32::from(n)),
            TextRef::U16(n) => out.dec(u32::from(n)),
            TextRef::I32(n) => out.signed(n),
            TextRef::U32(n) => out.hex(n, 1),
            TextRef::DtypePair(p) => {
                out.name(&DTYPE_NAMES, p.lo().0, self.gen);
                out.put("->");
                out.name(&DTYPE_NAMES, p.hi().0, self.gen);
            }
            TextRef::Opcode(o) => out.hex(u32::from(o.0), 2),
            TextRef::Addr4(a) => address(a, self.gen, out),
            TextRef::Enum(e) => enumeration(e, self.gen, out),
            TextRef::Bytes(b) => out.hex_bytes(b),
            // DMA addresses and patterns, 64-bit words and the PE generation blocks: their
            // own per-generation text (rare, not hot).
            TextRef::Own => out.put(&v.to_text(self.gen)),
        }
    }
}

/// The names of dtypes (also the two halves of a `DtypePair`).
static DTYPE_NAMES: NameTable = NameTable::of(Dtype::TABLE);

/// Writes an enumeration's name on `gen` (or its `0x..` value where `gen` does not define it).
#[inline(always)]
fn enumeration<S: Sink>(e: EnumValue, gen: Gen, out: &mut Line<'_, S>) {
    macro_rules! arms {
        ($($E:ident),*) => {
            match e {
                $( EnumValue::$E(e) => {
                    static NAMES: NameTable = NameTable::of($E::TABLE);
                    out.name(&NAMES, e.0, gen);
                } )*
            }
        };
    }
    for_each_enum_field!(arms);
}

/// A descriptor: `ADDRESS:[[step,num],…]`, the address as a partition range when the channel
/// count folds into it.
#[inline(always)]
fn tensor<S: Sink>(t: &TensorRef<'_>, gen: Gen, folded: Option<u8>, out: &mut Line<'_, S>) {
    let addr = t.start_addr;
    match (folded, addr.locate(gen)) {
        (Some(n), Some((space, p, off))) => {
            out.put(space.name());
            out.put("[p");
            out.dec(p);
            out.put("..");
            out.dec(p + u32::from(n));
            out.put("]+");
            out.hex(off, 1);
        }
        _ => address(addr, gen, out),
    }
    let holes = match t.indirect {
        Some(second) => {
            out.byte(INDIRECT_SEPARATOR as u8);
            address(second, gen, out);
            INDIRECT_HOLES
        }
        None => 0,
    };
    out.byte(b':');
    pairs_holes(t.step_elem, t.num_elem, holes, out);
}

/// `Addr4::to_text`.
fn address<S: Sink>(addr: Addr4, gen: Gen, out: &mut Line<'_, S>) {
    match addr.form() {
        AddrForm::Register(r) if u32::from(r) < NUM_REGISTERS => {
            out.put("reg[");
            out.dec(u32::from(r));
            out.byte(b']');
        }
        AddrForm::Immediate => match addr.locate(gen) {
            Some((space, p, off)) => {
                out.put(space.name());
                out.put("[p");
                out.dec(p);
                out.put("]+");
                out.hex(off, 1);
            }
            None => out.hex(addr.0, 8),
        },
        _ => out.hex(addr.0, 8),
    }
}

/// `[[step,num],…]`.
#[inline(always)]
fn pairs<S: Sink>(steps: &[i16], nums: &[u16], out: &mut Line<'_, S>) {
    pairs_holes(steps, nums, 0, out)
}

/// `[[step,num],…]` with the first `holes` steps written `_` (`pairs_text_holes`).
#[inline(always)]
fn pairs_holes<S: Sink>(steps: &[i16], nums: &[u16], holes: usize, out: &mut Line<'_, S>) {
    out.byte(b'[');
    for (i, (s, n)) in steps.iter().zip(nums).enumerate() {
        out.put(if i == 0 { "[" } else { ",[" });
        if i < holes {
            out.byte(b'_');
        } else {
            out.signed(i32::from(*s));
        }
        out.byte(b',');
        out.dec(u32::from(*n));
        out.byte(b']');
    }
    out.byte(b']');
}

/// FP32 bits as `f32_text` prints them: `{:?}` (shortest round-trip digits, the closest
/// of them; an exponent below 1e-4 and from 1e16), or the hex bits of a NaN.
///
/// `zmij` (the successor of `ryu`) finds the same shortest, closest digits, except on an
/// exact tie between two shortest candidates: it rounds to even where `{:?}` rounds up
/// (2.95703125 → "2.9570312" against "2.9570313"); and it lays digits out differently
/// ("1.7592186e+13" against "17592186000000.0"). So its digits are used only where no tie
/// can happen, and laid out here as `{:?}` does. A tie needs the exact decimal expansion to
/// be one digit longer than the shortest (so at most 10 significant digits, f32 needing at
/// most 9): values whose expansion has 8..=10 digits go through `f32_text`; those with at
/// most 7 are their own shortest form (no shorter string lies within half an ulp, as
/// 10^7 < 2^24) and print exactly, without `zmij`.
#[inline]
fn float<S: Sink>(bits: u32, out: &mut Line<'_, S>) {
    let v = f32::from_bits(bits);
    if v.is_nan() {
        out.hex(bits, 8);
        return;
    }
    if v.is_infinite() || v == 0.0 {
        out.put(match (v.is_sign_negative(), v == 0.0) {
            (false, true) => "0.0",
            (true, true) => "-0.0",
            (false, false) => "inf",
            (true, false) => "-inf",
        });
        return;
    }
    let abs = v.abs();
    let decimal_form = (1e-4..1e16).contains(&abs);
    match exact_decimal(bits) {
        Some(exact) if exact.significant <= 7 && decimal_form => exact.write(v < 0.0, out),
        Some(exact) if exact.significant >= 8 => out.put(&f32_text(bits)),
        _ => shortest(v, decimal_form, out),
    }
}

/// The exact value of a finite, non-zero FP32 as `digits / 10^scale`, when that fits a u64
/// (`digits` then has no trailing zero unless `scale` is 0).
struct ExactDecimal {
    digits: u64,
    scale: u32,
    significant: usize,
}

/// The exact decimal of `bits`, or `None` when it has more than 12 significant digits.
fn exact_decimal(bits: u32) -> Option<ExactDecimal> {
    let biased = (bits >> 23) & 0xFF;
    if biased == 0 {
        return None; // subnormal: m / 2^149, dozens of digits
    }
    // value = m · 2^e with m odd.
    let m = (bits & 0x7F_FFFF) | 1 << 23;
    let tz = m.trailing_zeros();
    let (m, e) = (u64::from(m >> tz), biased as i32 - 150 + tz as i32);
    if e >= 0 {
        // An integer; past 2^40 it has at least 13 digits and no trailing zero.
        if e > 40 {
            return None;
        }
        let n = m << e;
        let mut significant = n;
        while significant % 10 == 0 {
            significant /= 10;
        }
        return Some(ExactDecimal {
            digits: n,
            scale: 0,
            significant: decimal_len(significant),
        });
    }
    // m / 2^k = m·5^k / 10^k; m is odd, so m·5^k ends in 5 (no trailing zero). Past k = 17
    // it has at least 13 digits.
    let k = e.unsigned_abs();
    if k > 17 {
        return None;
    }
    let digits = m * 5u64.pow(k);
    Some(ExactDecimal {
        digits,
        scale: k,
        significant: decimal_len(digits),
    })
}

fn decimal_len(v: u64) -> usize {
    v.checked_ilog10().map_or(1, |l| l as usize + 1)
}

impl ExactDecimal {
    /// Writes the value in `{:?}`'s decimal form (for 1e-4 ≤ |v| < 1e16).
    fn write<S: Sink>(&self, negative: bool, out: &mut Line<'_, S>) {
        if negative {
            out.byte(b'-');
        }
        let scale = 10u64.pow(self.scale);
        out.dec64(self.digits / scale);
        out.byte(b'.');
        if self.scale == 0 {
            out.byte(b'0');
            return;
        }
        let frac = self.digits % scale;
        for _ in decimal_len(frac)..self.scale as usize {
            out.byte(b'0');
        }
        out.dec64(frac);
    }
}

/// `zmij`'s shortest digits of `v`, laid out as `{:?}` does.
fn shortest<S: Sink>(v: f32, decimal_form: bool, out: &mut Line<'_, S>) {
    let mut buffer = zmij::Buffer::new();
    let text = buffer.format_finite(v).as_bytes();
    // zmij writes `-`, digits with at most one `.`, then maybe `e±X`.
    let (mantissa, exponent) = match text.iter().position(|&c| c == b'e') {
        Some(i) => (&text[..i], parse_exponent(&text[i + 1..])),
        None => (text, 0),
    };
    let mut digits = [0u8; 24];
    let (mut n, mut before_point, mut leading_zeros, mut seen_point) = (0, 0i32, 0i32, false);
    for &c in mantissa {
        match c {
            b'.' => seen_point = true,
            b'0'..=b'9' => {
                if !seen_point {
                    before_point += 1;
                }
                if n == 0 && c == b'0' {
                    leading_zeros += 1;
                } else if n < digits.len() {
                    digits[n] = c;
                    n += 1;
                }
            }
            _ => {}
        }
    }
    while n > 1 && digits[n - 1] == b'0' {
        n -= 1;
    }
    let digits = &digits[..n.max(1)];
    // v = d0.d1d2… × 10^exp10
    let exp10 = before_point - leading_zeros + exponent - 1;
    if v < 0.0 {
        out.byte(b'-');
    }
    if !decimal_form {
        out.byte(digits[0]);
        if digits.len() > 1 {
            out.byte(b'.');
            out.put_ascii(&digits[1..]);
        }
        out.byte(b'e');
        out.signed(exp10);
    } else if exp10 >= 0 {
        let int_len = exp10 as usize + 1;
        if digits.len() > int_len {
            out.put_ascii(&digits[..int_len]);
            out.byte(b'.');
            out.put_ascii(&digits[int_len..]);
        } else {
            out.put_ascii(digits);
            for _ in digits.len()..int_len {
                out.byte(b'0');
            }
            out.put(".0");
        }
    } else {
        out.put("0.");
        for _ in 1..-exp10 {
            out.byte(b'0');
        }
        out.put_ascii(digits);
    }
}

/// `+12`, `-5` or `12` as an i32 (zmij's exponents are at most three digits).
fn parse_exponent(text: &[u8]) -> i32 {
    let (negative, digits) = match text.split_first() {
        Some((b'-', rest)) => (true, rest),
        Some((b'+', rest)) => (false, rest),
        _ => (false, text),
    };
    let v = digits.iter().fold(0i32, |acc, &d| {
        acc * 10 + i32::from(d.wrapping_sub(b'0') % 10)
    });
    if negative {
        -v
    } else {
        v
    }
}

/// The `.bundle` line: the 64 bytes as sixteen 4-byte hex groups and a comment saying why.
fn bundle<S: Sink>(inst: &Instruction, gen: Gen, out: &mut S) {
    out.put_str(&bundle_line(inst, gen));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::opcode::Opcode;
    use crate::opcode::OPCODES;

    fn float_text(bits: u32) -> String {
        let mut s = String::new();
        let mut line = Line::new(&mut s);
        float(bits, &mut line);
        line.finish();
        s
    }

    // Every field of every struct, printed (reserved bytes non-zero, header and event
    // fields set), reads as the plain path prints it.
    #[test]
    fn every_field_prints_as_the_plain_path() {
        for g in Gen::ALL {
            for r in OPCODES.iter().filter(|r| r.gens.contains(g)) {
                let mut inst = Instruction::new(Opcode(r.value), g);
                inst.header.debug_hint = 1; // header and event fields print too
                inst.events.semaphore_value = 7;
                inst.events.wait_mode = WaitMode(1);
                inst.header.debug_cmd = DebugCmd(1);
                let mut b = inst.encode();
                for (i, x) in b.iter_mut().enumerate().skip(12) {
                    *x = i as u8; // every reserved byte non-zero, so every field prints
                }
                let inst = Instruction::decode(&b, g);
                let (mut fast, mut plain) = (String::new(), String::new());
                structured(&inst, r, g, &mut fast);
                super::super::plain::line(&inst, g, &mut plain);
                assert_eq!(fast, plain, "{} on {g}", r.mnemonic);
            }
        }
    }

    // The fast float text is `f32_text`, on the values each path handles: exact short
    // values, ties (2.95703125), exponents both ways, the 1e13..1e16 range where zmij's
    // layout differs, subnormals, infinities, NaNs, and a sweep of all bit patterns.
    #[test]
    fn float_text_is_f32_text() {
        let check = |bits: u32| assert_eq!(float_text(bits), f32_text(bits), "{bits:#010x}");
        for v in [
            0.0f32,
            -0.0,
            1.0,
            64.0,
            0.125,
            -0.5,
            0.0009765625,
            1234567.0,
            0.1,
            1e16,
            1e15,
            17592186044416.0,
            12345678.0,
            757.0 / 256.0, // 2.95703125: a tie
            3e-5,
            1e-5,
            f32::MAX,
            -f32::MAX,
            f32::MIN_POSITIVE,
            f32::EPSILON,
            f32::INFINITY,
            f32::NEG_INFINITY,
        ] {
            check(v.to_bits());
        }
        for bits in [1, 0x8000_0001, 0x7FC0_0000, 0xFFFF_FFFF, 0x7F80_0001] {
            check(bits);
        }
        for m in 0..2048u32 {
            for k in -40..=40i32 {
                let v = m as f32 * 2f32.powi(k);
                check(v.to_bits());
                check((-v).to_bits());
            }
        }
        for bits in (0..=u32::MAX).step_by(40_009) {
            check(bits);
        }
    }
}
