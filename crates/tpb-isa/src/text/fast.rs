//! The assembler's fast path: one instruction line straight to its 64 bytes, reading the
//! line's bytes once, with no allocation, no `dyn` field lists and no per-token `String`.
//!
//! It handles the lines compilers and `disasm` write (lower-case mnemonics and field names,
//! the common number spellings) and says `None` for anything else: an error, a directive,
//! non-ASCII text, a spelling it does not know. The driver then assembles that line on the
//! plain path (`parse.rs`), which stays the one place that accepts the full syntax and words
//! every error, so messages, columns and the error cap are the plain path's by
//! construction. Where the fast path succeeds it gives the plain path's bytes: the tables
//! below are built by asking the plain path's own lookups (`Opcode::from_mnemonic`,
//! `resolve_key`, `part_of`), and `tests/text_fast.rs` compares the two on random valid and
//! mutated lines.

use super::lex::{self, is_ws, Scan};
use super::names::NameMap;
use super::schema::for_each_enum_field;
use super::schema::{part_of, resolve_key, Part, CHANNELS_FIELD, FIELD_ALIASES, OPCODE_FIELD};
use crate::gen::Gen;
use crate::opcode::{Opcode, StructKind, OPCODES};
use crate::tables::{
    AccumCmd, ActFunc, AffineSelectCmp, AluOp, CodeEnum, DataSrc, DebugCmd, DgeComputeOp,
    DgeOpcode, Dtype, ImmSrc, ImmSrcN, PeFp32Mode, PeSeedMode, ReduceAxis, ReduceCmd, ReduceOp,
    RevOps, TensorSubdim, UpdateMode, WaitMode,
};
use crate::wire::{
    Body, Data4d, DtypePair, EnumValue, Events, F32Bits, Field, FieldDyn, Header, ImmVal,
    Instruction, Tensor, TextRef, TextWriter, INST_WORD_LEN,
};
use std::sync::OnceLock;

/// What a setter did besides writing the field's bytes.
enum Set {
    Done,
    /// The value was an address with a partition range implying this many channels.
    Range(u8),
}

/// Reads a value and writes the field's bytes (`None`: leave the line to the plain path).
#[derive(Clone, Copy)]
enum Setter {
    /// A bracket-free token: the text up to the next whitespace.
    Token(fn(&str, Gen, &mut [u8]) -> Option<Set>),
    /// A descriptor, read in one pass from the value's first byte to the end of its list.
    Operand(fn(&mut Scan<'_>, Gen, &mut [u8]) -> Option<Set>),
    /// A bracket-free token read by the field type's own `parse_text`.
    Own(TextWriter),
}

/// One field of a struct: where its bytes are and how to set them.
#[derive(Clone, Copy)]
struct Slot {
    offset: usize,
    size: usize,
    /// `None` for a field type with no setter (then the line goes to the plain path).
    setter: Option<Setter>,
}

/// What the fast path knows about one operand struct.
struct StructTable {
    /// `Instruction::new`'s bytes for an opcode of this struct, opcode byte zero.
    template: [u8; 64],
    /// Header, events and body fields (at most 64, one bit each for "given twice").
    slots: Vec<Slot>,
    /// Every accepted key (field names and short names, lower case) to its slot.
    keys: NameMap,
    /// The `num_active_channels` slot, when the struct has one.
    channels: Option<u8>,
}

struct Tables {
    /// Lower-case mnemonics to their opcode byte.
    mnemonics: NameMap,
    /// One per [`StructKind::ALL`] entry, in that order.
    structs: Vec<StructTable>,
}

fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(build_tables)
}

fn build_tables() -> Tables {
    let mnemonics = NameMap::new(OPCODES.iter().filter_map(|r| {
        Some((
            r.mnemonic.as_bytes(),
            u16::from(Opcode::from_mnemonic(r.mnemonic)?.0),
        ))
    }));
    let structs = StructKind::ALL.iter().map(|&k| struct_table(k)).collect();
    Tables { mnemonics, structs }
}

/// The map of an enumeration's names and aliases, each to the value `parse_name` gives it.
fn enum_map<T: CodeEnum>() -> NameMap {
    NameMap::new(T::table().iter().flat_map(|r| {
        std::iter::once(r.name)
            .chain(r.aliases.iter().copied())
            .filter_map(|n| Some((n.as_bytes(), u16::from(T::parse_name(n)?.raw()))))
    }))
}

/// An enumeration's name setter and the dtype names map, each enumeration's map built once
/// (one arm per enumeration field type, from the one list `for_each_enum_field!`).
macro_rules! enum_setters {
    ($($E:ident),*) => {
        /// The setter of an enumeration field: a name or alias as written in the table
        /// (other spellings: the plain path).
        fn enum_setter(e: EnumValue) -> Setter {
            match e {
                $( EnumValue::$E(_) => Setter::Token(|s, gen, out| {
                    static MAP: OnceLock<NameMap> = OnceLock::new();
                    let v = MAP.get_or_init(enum_map::<$E>).get(s.as_bytes())?;
                    // A name of another generation: the plain path says so.
                    let v = $E::from_raw(u8::try_from(v).ok()?);
                    if !v.defined_on(gen) {
                        return None;
                    }
                    v.write(out);
                    Some(Set::Done)
                }), )*
            }
        }
    };
}
for_each_enum_field!(enum_setters);

/// Dtype names and aliases (the halves of `IN->OUT`).
fn dtype_map() -> &'static NameMap {
    static MAP: OnceLock<NameMap> = OnceLock::new();
    MAP.get_or_init(enum_map::<Dtype>)
}

fn struct_table(kind: StructKind) -> StructTable {
    let shape = Instruction {
        header: Header {
            inst_word_len: INST_WORD_LEN,
            ..Default::default()
        },
        events: Events::default(),
        body: Body::default_for(Some(kind)),
    };
    let parts = [
        (Part::Header, shape.header.fields()),
        (Part::Events, shape.events.fields()),
        (Part::Body, shape.body.fields()),
    ];
    let mut slots = Vec::new();
    let mut names: Vec<(Part, &'static str)> = Vec::new();
    for (part, fields) in &parts {
        for (meta, f) in fields {
            names.push((*part, meta.name));
            slots.push(Slot {
                offset: meta.offset,
                size: meta.size,
                setter: setter_for(*f),
            });
        }
    }
    // Slots past 64 would have no "given twice" bit: such fields are left to the plain path.
    let slot_of = |name: &str| {
        let part = part_of(&shape, name)?;
        let i = names.iter().position(|&(p, n)| p == part && n == name)?;
        u8::try_from(i).ok().filter(|&i| i < 64)
    };
    // Every name a line may write: the plain path's own resolution says which field it is.
    let candidates = names
        .iter()
        .map(|&(_, n)| n)
        .chain(FIELD_ALIASES.iter().map(|(a, _)| *a));
    let keys = NameMap::new(candidates.filter_map(|key| {
        let name = resolve_key(&shape, key).filter(|&n| n != OPCODE_FIELD)?;
        Some((key.as_bytes(), u16::from(slot_of(name)?)))
    }));
    // The channel count is one byte; anything else leaves claims to the plain path.
    let channels = slot_of(CHANNELS_FIELD).filter(|&i| slots[usize::from(i)].size == 1);
    let mut template = shape.encode();
    template[0] = 0;
    StructTable {
        template,
        slots,
        keys,
        channels,
    }
}

/// The setter for a field, by its written form (exhaustive: a new form does not build
/// until it has a setter or says it has none).
fn setter_for(f: &dyn FieldDyn) -> Option<Setter> {
    Some(match f.text_value() {
        TextRef::Tensor(t) => match t.num_elem.len() {
            1 => Setter::Operand(set_tensor::<1>),
            2 => Setter::Operand(set_tensor::<2>),
            3 => Setter::Operand(set_tensor::<3>),
            4 => Setter::Operand(set_tensor::<4>),
            _ => return None,
        },
        TextRef::Data4d(_) => Setter::Operand(set_data4d),
        TextRef::U8(_) => Setter::Token(set_u8),
        TextRef::I32(_) => Setter::Token(set_i32),
        TextRef::U32(_) => Setter::Token(set_u32),
        TextRef::F32(_) => Setter::Token(set_f32),
        TextRef::Imm(_) => Setter::Token(set_imm),
        TextRef::Enum(e) => enum_setter(e),
        TextRef::DtypePair(_) => Setter::Token(set_dtype_pair),
        // The field's own text rule (what the plain path calls), without the `dyn` hop.
        // `[name:value,…]` lists (the PE blocks) start with a bracket: the token reader
        // declines them and the plain path reads them.
        TextRef::U16(_)
        | TextRef::Opcode(_)
        | TextRef::Addr4(_)
        | TextRef::Bytes(_)
        | TextRef::Own => Setter::Own(f.text_writer()),
    })
}

/// `IN->OUT` dtype names.
fn set_dtype_pair(s: &str, gen: Gen, out: &mut [u8]) -> Option<Set> {
    let (lo, hi) = s.split_once("->")?;
    let dtypes = dtype_map();
    let (lo, hi) = (dtypes.get(lo.as_bytes())?, dtypes.get(hi.as_bytes())?);
    if lo > 0xF || hi > 0xF {
        return None;
    }
    let (lo, hi) = (Dtype::from_raw(lo as u8), Dtype::from_raw(hi as u8));
    if !(lo.defined_on(gen) && hi.defined_on(gen)) {
        return None;
    }
    DtypePair::new(lo, hi).write(out);
    Some(Set::Done)
}

fn set_u8(s: &str, _: Gen, out: &mut [u8]) -> Option<Set> {
    let v = u8::try_from(lex::int(lex::trim(s.as_bytes()))?).ok()?;
    v.write(out);
    Some(Set::Done)
}

fn set_i32(s: &str, _: Gen, out: &mut [u8]) -> Option<Set> {
    lex::i32_field(s.as_bytes())?.write(out);
    Some(Set::Done)
}

fn set_u32(s: &str, _: Gen, out: &mut [u8]) -> Option<Set> {
    lex::u32_field(s.as_bytes())?.write(out);
    Some(Set::Done)
}

fn set_f32(s: &str, _: Gen, out: &mut [u8]) -> Option<Set> {
    F32Bits(lex::f32_bits(s.as_bytes())?).write(out);
    Some(Set::Done)
}

fn set_imm(s: &str, _: Gen, out: &mut [u8]) -> Option<Set> {
    ImmVal(lex::imm_val(s.as_bytes())?).write(out);
    Some(Set::Done)
}

/// `ADDRESS:[[step,num],…]`, read from the value's first byte to the end of its list.
fn set_tensor<const N: usize>(s: &mut Scan<'_>, gen: Gen, out: &mut [u8]) -> Option<Set> {
    let (start_addr, channels) = s.address(gen)?;
    if !s.colon() {
        return None;
    }
    let (step_elem, num_elem) = s.pairs::<N>()?;
    Tensor {
        start_addr,
        step_elem,
        num_elem,
    }
    .write(out);
    Some(channels.map_or(Set::Done, Set::Range))
}

/// `BASE:[[step,num],…]`, the same way.
fn set_data4d(s: &mut Scan<'_>, _: Gen, out: &mut [u8]) -> Option<Set> {
    let base = s.base()?;
    if !s.colon() {
        return None;
    }
    let (step_elem, num_elem) = s.pairs::<4>()?;
    Data4d {
        base,
        step_elem,
        num_elem,
    }
    .write(out);
    Some(Set::Done)
}

/// Byte classes for the line scanner: one table load per byte.
const KEY: u8 = 1;
const WS: u8 = 2;
const BRACKET: u8 = 4;
static CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        if b.is_ascii_alphanumeric() || b == b'_' {
            t[c] = KEY;
        } else if b == b' ' || (b >= b'\t' && b <= b'\r') {
            t[c] = WS;
        } else if b == b'[' || b == b']' {
            t[c] = BRACKET;
        }
        c += 1;
    }
    t
};

#[inline(always)]
fn class(b: u8) -> u8 {
    CLASS[usize::from(b)]
}

/// The index of the first byte of `b` at or after `from` that is not whitespace.
#[inline(always)]
fn skip_ws(b: &[u8], from: usize) -> usize {
    from + b[from..].iter().take_while(|&&c| class(c) == WS).count()
}

/// Assembles the code of one instruction line (comment cut, trimmed, ASCII, not a
/// directive, not empty) for `gen` into `out`, or `None` (with `out` undefined) to leave it
/// to the plain path.
pub(crate) fn instruction(code: &str, gen: Gen, out: &mut [u8; 64]) -> Option<()> {
    let t = tables();
    let b = code.as_bytes();
    let word_end = b.iter().position(|&c| is_ws(c)).unwrap_or(b.len());
    let opcode = Opcode(u8::try_from(t.mnemonics.get(&b[..word_end])?).ok()?);
    let kind = opcode.info(gen)?.kind;
    let st = &t.structs[StructKind::ALL.iter().position(|&k| k == kind)?];
    *out = st.template;
    out[0] = opcode.0;

    let mut seen = 0u64;
    let (mut explicit, mut range) = (None::<u8>, None::<u8>);
    let mut pos = skip_ws(b, word_end);
    while pos < b.len() {
        let key_start = pos;
        pos += b[pos..].iter().take_while(|&&c| class(c) == KEY).count();
        let key = &b[key_start..pos];
        pos = skip_ws(b, pos);
        if key.is_empty() || b.get(pos) != Some(&b'=') {
            return None;
        }
        pos = skip_ws(b, pos + 1);
        let slot_index = u8::try_from(st.keys.get(key)?).ok()?;
        let bit = 1u64 << slot_index;
        if seen & bit != 0 {
            return None;
        }
        seen |= bit;
        let slot = st.slots[usize::from(slot_index)];
        let field = out.get_mut(slot.offset..slot.offset + slot.size)?;
        // The plain path ends a value at whitespace outside brackets; each reader below
        // stops exactly there or gives up.
        let done = match slot.setter? {
            setter @ (Setter::Token(_) | Setter::Own(_)) => {
                let start = pos;
                pos += b[pos..]
                    .iter()
                    .take_while(|&&c| class(c) & (WS | BRACKET) == 0)
                    .count();
                if pos == start || b.get(pos).is_some_and(|&c| class(c) == BRACKET) {
                    return None;
                }
                let token = &code[start..pos];
                match setter {
                    Setter::Own(write) => {
                        write(token, gen, field).ok()?;
                        Set::Done
                    }
                    Setter::Token(set) => set(token, gen, field)?,
                    Setter::Operand(_) => return None,
                }
            }
            Setter::Operand(set) => {
                let mut s = Scan::new(&b[pos..]);
                let done = set(&mut s, gen, field)?;
                if !s.at_value_end() {
                    return None;
                }
                pos += s.pos();
                done
            }
        };
        match done {
            Set::Done if Some(slot_index) == st.channels => explicit = Some(field[0]),
            Set::Done => {}
            // Ranges must agree with each other and with an explicit count.
            Set::Range(n) => match range {
                Some(r) if r != n => return None,
                _ => range = Some(n),
            },
        }
        pos = skip_ws(b, pos);
    }
    if let Some(count) = explicit.or(range) {
        if range.is_some_and(|r| r != count) {
            return None;
        }
        out[st.slots[usize::from(st.channels?)].offset] = count;
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every field of every struct has a setter, so no field sends its lines to the plain
    /// path for want of one (`setter_for` matches every written form; only a descriptor of
    /// more than 4 slots would have none).
    #[test]
    fn every_field_type_has_a_setter() {
        for &kind in StructKind::ALL {
            let t = struct_table(kind);
            assert!(t.slots.iter().all(|s| s.setter.is_some()), "{kind:?}");
            assert!(t.slots.len() <= 64, "{kind:?}");
        }
    }

    #[test]
    fn every_mnemonic_and_field_name_is_a_key() {
        let t = tables();
        assert_eq!(t.mnemonics.len(), OPCODES.len());
        for (&kind, st) in StructKind::ALL.iter().zip(&t.structs) {
            for m in Body::layout(kind) {
                assert!(
                    st.keys.get(m.name.as_bytes()).is_some(),
                    "{kind:?} {}",
                    m.name
                );
            }
        }
    }
}
