//! The fast disassembler: a formatter per wire struct, generated from the struct's own field
//! list (`wire_struct!`'s `visit_fields`, with every field's static type), that appends one
//! line to the caller's buffer: no allocation per line, no `core::fmt`, table lookups for
//! enumeration names, `itoa` for integers, a dedicated path for floats. It prints exactly
//! what `plain.rs` prints (a differential property test checks it on every generation).
//!
//! The field-type dispatch below tests `Any` type ids of statically known types: after
//! inlining each test is a constant, so each struct's formatter is straight-line code.

use super::imm_is_fp32;
use super::line::{Line, NameTable, Sink};
use super::plain::bundle_line;
use crate::gen::Gen;
use crate::geometry::NUM_REGISTERS;
use crate::opcode::Opcode;
use crate::opcode::OpcodeInfo;
use crate::tables::{
    AccumCmd, AffineSelectCmp, AluOp, DebugCmd, Dtype, ImmSrc, RevOps, TensorSubdim, UpdateMode,
    WaitMode,
};
use crate::text::schema::{always_printed_any, for_each_enum_field, CHANNELS_FIELD, OPCODE_FIELD};
use crate::wire::descriptor::f32_text;
use crate::wire::{
    Addr4, AddrForm, Body, Bytes, Data4d, DtypePair, F32Bits, Field, FieldVisitor, ImmVal,
    Instruction, Tensor,
};
use std::any::Any;

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

/// The structured line; returns how many fields went through the slow `to_text` fallback
/// (none: a test checks every struct).
fn structured<S: Sink>(inst: &Instruction, row: &OpcodeInfo, gen: Gen, out: &mut S) -> u32 {
    let mut out = Line::new(out);
    out.put(row.mnemonic);
    // The channel count folds into partition ranges when some operand can carry one; the
    // operands may come before the count, so a first pass finds both.
    let mut scan = Scan {
        gen,
        channels: None,
        locatable: false,
    };
    visit_body(&inst.body, &mut scan);
    let mut w = Writer {
        inst,
        gen,
        folded: scan.channels.filter(|_| scan.locatable),
        preamble: false,
        fallbacks: 0,
        out,
    };
    visit_body(&inst.body, &mut w);
    // Event and header fields print only where they differ from a fresh instruction's.
    let base = Instruction::new(inst.opcode(), gen);
    w.preamble = true;
    inst.events.visit_fields(&base.events, &mut w);
    inst.header.visit_fields(&base.header, &mut w);
    w.out.finish();
    w.fallbacks
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

/// `value` as an `X`, when that is its type (a constant test once `T` is known).
#[inline(always)]
fn cast<X: 'static, T: 'static>(value: &T) -> Option<&X> {
    (value as &dyn Any).downcast_ref::<X>()
}

/// A descriptor's start address, whatever its N.
#[inline(always)]
fn tensor_addr<T: 'static>(v: &T) -> Option<Addr4> {
    None.or_else(|| cast::<Tensor<1>, T>(v).map(|t| t.start_addr))
        .or_else(|| cast::<Tensor<2>, T>(v).map(|t| t.start_addr))
        .or_else(|| cast::<Tensor<3>, T>(v).map(|t| t.start_addr))
        .or_else(|| cast::<Tensor<4>, T>(v).map(|t| t.start_addr))
}

/// The first pass: the channel count, and whether an operand address lies in SBUF or PSUM.
struct Scan {
    gen: Gen,
    channels: Option<u8>,
    locatable: bool,
}

impl FieldVisitor for Scan {
    #[inline(always)]
    fn field<T: Field>(&mut self, name: &'static str, value: &T, _: &T) {
        if let Some(n) = cast::<u8, T>(value).filter(|_| name == CHANNELS_FIELD) {
            self.channels = Some(*n);
        }
        if let Some(a) = tensor_addr(value) {
            self.locatable |= a.locate(self.gen).is_some();
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
    /// Fields written through `to_text` (a type this file does not know).
    fallbacks: u32,
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
            always_printed_any(name, value as &dyn Any) || value != base
        };
        if printed {
            self.out.key(name);
            self.value(name, value);
        }
    }
}

impl<S: Sink> Writer<'_, '_, S> {
    /// The field's text: what its `to_text` gives (or, for descriptors and fp32
    /// immediates, what `plain.rs` prints in its place).
    #[inline(always)]
    fn value<T: Field>(&mut self, name: &'static str, v: &T) {
        let out = &mut self.out;
        if let Some(t) = cast::<Tensor<1>, T>(v) {
            tensor(t, self.gen, self.folded, out);
        } else if let Some(t) = cast::<Tensor<2>, T>(v) {
            tensor(t, self.gen, self.folded, out);
        } else if let Some(t) = cast::<Tensor<3>, T>(v) {
            tensor(t, self.gen, self.folded, out);
        } else if let Some(t) = cast::<Tensor<4>, T>(v) {
            tensor(t, self.gen, self.folded, out);
        } else if let Some(d) = cast::<Data4d, T>(v) {
            out.signed(d.base);
            out.byte(b':');
            pairs(&d.step_elem, &d.num_elem, out);
        } else if let Some(i) = cast::<ImmVal, T>(v) {
            if imm_is_fp32(self.inst, name) {
                float(i.0, out);
            } else {
                out.hex(i.0, 1);
            }
        } else if let Some(f) = cast::<F32Bits, T>(v) {
            float(f.0, out);
        } else if let Some(n) = cast::<u8, T>(v) {
            out.dec(u32::from(*n));
        } else if let Some(n) = cast::<i32, T>(v) {
            out.signed(*n);
        } else if let Some(n) = cast::<u32, T>(v) {
            out.hex(*n, 1);
        } else if let Some(p) = cast::<DtypePair, T>(v) {
            out.name(&DTYPE_NAMES, p.lo().0);
            out.put("->");
            out.name(&DTYPE_NAMES, p.hi().0);
        } else if let Some(o) = cast::<Opcode, T>(v) {
            out.hex(u32::from(o.0), 2);
        } else if !enumeration(v, out) && !raw_bytes(v, out) {
            self.fallbacks += 1;
            out.put(&v.to_text(self.gen));
        }
    }
}

/// The names of dtypes (also the two halves of a `DtypePair`).
static DTYPE_NAMES: NameTable = NameTable::of(Dtype::TABLE);

/// Writes an enumeration's name (or its `0x..` value); false if `v` is none.
#[inline(always)]
fn enumeration<T: 'static, S: Sink>(v: &T, out: &mut Line<'_, S>) -> bool {
    macro_rules! arms {
        ($($E:ident),*) => {
            $( if let Some(e) = cast::<$E, T>(v) {
                static NAMES: NameTable = NameTable::of($E::TABLE);
                out.name(&NAMES, e.0);
                return true;
            } )*
        };
    }
    for_each_enum_field!(arms);
    false
}

/// Writes reserved bytes as hex (`Bytes::to_text`); false if `v` is not a `Bytes<N>` of a
/// size the structs use (the fallback test names any new size).
#[inline(always)]
fn raw_bytes<T: 'static, S: Sink>(v: &T, out: &mut Line<'_, S>) -> bool {
    macro_rules! sizes {
        ($($n:literal),*) => {
            $( if let Some(b) = cast::<Bytes<$n>, T>(v) {
                out.hex_bytes(&b.0);
                return true;
            } )*
        };
    }
    sizes!(1, 2, 3, 4, 5, 9, 15, 20, 52);
    false
}

/// A descriptor: `ADDRESS:[[step,num],…]`, the address as a partition range when the channel
/// count folds into it.
#[inline(always)]
fn tensor<const N: usize, S: Sink>(
    t: &Tensor<N>,
    gen: Gen,
    folded: Option<u8>,
    out: &mut Line<'_, S>,
) {
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
    out.byte(b':');
    pairs(&t.step_elem, &t.num_elem, out);
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
    out.byte(b'[');
    for (i, (s, n)) in steps.iter().zip(nums).enumerate() {
        out.put(if i == 0 { "[" } else { ",[" });
        out.signed(i32::from(*s));
        out.byte(b',');
        out.dec(u32::from(*n));
        out.byte(b']');
    }
    out.byte(b']');
}

/// FP32 bits as `f32_text` prints them. `f32_text` is `{:?}` (shortest round-trip digits,
/// exponent form below 1e-4 and from 1e16). `ryu` and `zmij` pick the same digits except on
/// exact ties (they round to even, `{:?}` rounds up: 2.95703125 → "2.9570313") and lay out
/// exponents and the 1e13..1e16 range differently, so they cannot give the same text.
/// Instead: a value whose exact decimal expansion has at most 7 significant digits prints as
/// that expansion (no shorter string lies within half an ulp: 10^7 < 2^24), which covers the
/// constants programs use (0.0, 1.0, 0.125, 64.0); anything else goes through `f32_text`.
#[inline]
fn float<S: Sink>(bits: u32, out: &mut Line<'_, S>) {
    if !short_float(bits, out) {
        out.put(&f32_text(bits));
    }
}

/// Writes `bits` when its exact decimal has ≤ 7 significant digits and lies in the range
/// `{:?}` prints without an exponent; false (nothing written) otherwise.
fn short_float<S: Sink>(bits: u32, out: &mut Line<'_, S>) -> bool {
    const MAX_SIGNIFICANT: u64 = 10_000_000; // 7 digits
    let negative = bits >> 31 == 1;
    let biased = (bits >> 23) & 0xFF;
    let fraction = bits & 0x7F_FFFF;
    if biased == 0 && fraction == 0 {
        out.put(if negative { "-0.0" } else { "0.0" });
        return true;
    }
    if biased == 0 || biased == 0xFF {
        return false; // subnormal (below 1e-4), infinite or NaN
    }
    // value = m · 2^e with m odd.
    let m = fraction | 1 << 23;
    let tz = m.trailing_zeros();
    let (m, e) = (u64::from(m >> tz), biased as i32 - 150 + tz as i32);
    if e >= 0 {
        // An integer: printed as its digits and ".0" when below 1e16.
        if e > 40 {
            return false;
        }
        let n = m << e;
        let mut significant = n;
        while significant % 10 == 0 {
            significant /= 10;
        }
        if n >= 10_000_000_000_000_000 || significant >= MAX_SIGNIFICANT {
            return false;
        }
        if negative {
            out.byte(b'-');
        }
        out.dec64(n);
        out.put(".0");
        return true;
    }
    // m / 2^k = m·5^k / 10^k: the digits of m·5^k with the point k places from the right
    // (m is odd, so the last digit is not 0).
    let k = e.unsigned_abs();
    if k > 17 {
        return false;
    }
    let digits = m * 5u64.pow(k);
    let scale = 10u64.pow(k);
    // At most 7 significant digits, and at least 1e-4 (`{:?}` switches to an exponent below).
    if digits >= MAX_SIGNIFICANT || digits * 10_000 < scale {
        return false;
    }
    if negative {
        out.byte(b'-');
    }
    out.dec64(digits / scale);
    out.byte(b'.');
    let frac = digits % scale;
    let mut width = 1;
    while width < k && frac >= 10u64.pow(width) {
        width += 1;
    }
    for _ in width..k {
        out.byte(b'0');
    }
    out.dec64(frac);
    true
}

/// The `.bundle` line: the 64 bytes as sixteen 4-byte hex groups and a comment saying why.
fn bundle<S: Sink>(inst: &Instruction, gen: Gen, out: &mut S) {
    out.put_str(&bundle_line(inst, gen));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::opcode::OPCODES;

    fn float_text(bits: u32) -> Option<String> {
        let mut s = String::new();
        let mut line = Line::new(&mut s);
        let short = short_float(bits, &mut line);
        line.finish();
        short.then_some(s)
    }

    // Every field type of every struct has a fast arm: a new type (or a new `Bytes<N>`
    // size) fails here by name instead of silently taking the `to_text` path.
    #[test]
    fn no_field_takes_the_fallback() {
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
                let mut s = String::new();
                let fallbacks = structured(&inst, r, g, &mut s);
                assert_eq!(fallbacks, 0, "{} on {g}: {s}", r.mnemonic);
            }
        }
    }

    #[test]
    fn short_floats_are_what_debug_prints() {
        for v in [
            0.0f32,
            -0.0,
            1.0,
            64.0,
            0.125,
            -0.5,
            0.0009765625,
            1234567.0,
        ] {
            assert_eq!(
                float_text(v.to_bits()).as_deref(),
                Some(format!("{v:?}").as_str()),
                "{v}"
            );
        }
        // Not short, or printed with an exponent: left to `f32_text`.
        for v in [
            0.1f32,
            1e16,
            12345678.0,
            757.0 / 256.0, // 2.95703125: 9 digits
            3e-5,
            f32::MAX,
            f32::NAN,
        ] {
            assert_eq!(float_text(v.to_bits()), None, "{v}");
        }
    }

    // Whatever `short_float` accepts is exactly `{:?}`: every dyadic value m/2^k with small
    // m and k, both signs (the values it can accept), and a sweep of bit patterns.
    #[test]
    fn short_floats_agree_with_debug_everywhere_they_apply() {
        let mut accepted = 0;
        let mut check = |v: f32| {
            if let Some(t) = float_text(v.to_bits()) {
                assert_eq!(t, format!("{v:?}"), "{:#010x}", v.to_bits());
                accepted += 1;
            }
        };
        for m in 0..4096u32 {
            for k in -30..=30i32 {
                let v = m as f32 * 2f32.powi(k);
                check(v);
                check(-v);
            }
        }
        for bits in (0..=u32::MAX).step_by(65_537) {
            check(f32::from_bits(bits));
        }
        assert!(accepted > 100_000, "{accepted}");
    }
}
