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
use super::schema::{part_of, resolve_key, Part, CHANNELS_FIELD, FIELD_ALIASES, OPCODE_FIELD};
use crate::gen::Gen;
use crate::opcode::{Opcode, StructKind, OPCODES};
use crate::tables::{
    AccumCmd, ActFunc, AffineSelectCmp, AluOp, CodeEnum, DataSrc, DebugCmd, DgeComputeOp,
    DgeOpcode, Dtype, ImmSrc, ImmSrcN, PeFp32Mode, ReduceAxis, ReduceCmd, ReduceOp, RevOps,
    TensorSubdim, UpdateMode, WaitMode,
};
use crate::wire::{
    Body, Bytes, Data4d, DtypePair, Events, F32Bits, Field, FieldDyn, Header, ImmVal, Instruction,
    LwCtrl, MmCtrl, Tensor, INST_WORD_LEN,
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
    /// Names and aliases of each enumeration to its raw value, by [`FastEnum::INDEX`].
    enums: Vec<NameMap>,
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
    Tables {
        mnemonics,
        structs,
        enums: enum_maps(),
    }
}

/// The map of an enumeration's names and aliases, each to the value `parse_name` gives it.
fn enum_map<T: CodeEnum>() -> NameMap {
    NameMap::new(T::table().iter().flat_map(|r| {
        std::iter::once(r.name)
            .chain(r.aliases.iter().copied())
            .filter_map(|n| Some((n.as_bytes(), u16::from(T::parse_name(n)?.raw()))))
    }))
}

/// An enumeration with a name map: its index in [`Tables::enums`].
trait FastEnum: CodeEnum + Field {
    const INDEX: usize;
}

macro_rules! fast_enums {
    ($($T:ty = $i:literal,)*) => {
        $( impl FastEnum for $T { const INDEX: usize = $i; } )*
        fn enum_maps() -> Vec<NameMap> {
            let maps = vec![$( enum_map::<$T>() ),*];
            debug_assert!([$($i),*].iter().enumerate().all(|(n, i)| n == *i));
            maps
        }
    };
}
fast_enums!(
    Dtype = 0,
    AluOp = 1,
    AffineSelectCmp = 2,
    TensorSubdim = 3,
    RevOps = 4,
    ImmSrc = 5,
    AccumCmd = 6,
    WaitMode = 7,
    UpdateMode = 8,
    DebugCmd = 9,
    ReduceOp = 10,
    ReduceAxis = 11,
    DgeComputeOp = 12,
    DgeOpcode = 13,
    DataSrc = 14,
    PeFp32Mode = 15,
    ImmSrcN = 16,
    ReduceCmd = 17,
    ActFunc = 18,
);

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

/// The setter for a field's type, or `None` for a type without one.
fn setter_for(f: &dyn FieldDyn) -> Option<Setter> {
    let a = f.as_any();
    macro_rules! by_type {
        ($($T:ty => $set:expr,)*) => {
            $( if a.is::<$T>() { return Some($set); } )*
        };
    }
    by_type!(
        Tensor<1> => Setter::Operand(set_tensor::<1>),
        Tensor<2> => Setter::Operand(set_tensor::<2>),
        Tensor<3> => Setter::Operand(set_tensor::<3>),
        Tensor<4> => Setter::Operand(set_tensor::<4>),
        Data4d => Setter::Operand(set_data4d),
        u8 => Setter::Token(set_u8),
        i32 => Setter::Token(set_i32),
        u32 => Setter::Token(set_u32),
        F32Bits => Setter::Token(set_f32),
        ImmVal => Setter::Token(set_imm),
        Dtype => Setter::Token(set_enum::<Dtype>),
        AluOp => Setter::Token(set_enum::<AluOp>),
        AffineSelectCmp => Setter::Token(set_enum::<AffineSelectCmp>),
        TensorSubdim => Setter::Token(set_enum::<TensorSubdim>),
        RevOps => Setter::Token(set_enum::<RevOps>),
        ImmSrc => Setter::Token(set_enum::<ImmSrc>),
        AccumCmd => Setter::Token(set_enum::<AccumCmd>),
        WaitMode => Setter::Token(set_enum::<WaitMode>),
        UpdateMode => Setter::Token(set_enum::<UpdateMode>),
        DebugCmd => Setter::Token(set_enum::<DebugCmd>),
        ReduceOp => Setter::Token(set_enum::<ReduceOp>),
        ReduceAxis => Setter::Token(set_enum::<ReduceAxis>),
        PeFp32Mode => Setter::Token(set_enum::<PeFp32Mode>),
        ImmSrcN => Setter::Token(set_enum::<ImmSrcN>),
        ReduceCmd => Setter::Token(set_enum::<ReduceCmd>),
        ActFunc => Setter::Token(set_enum::<ActFunc>),
        // `[name:value,…]` lists start with a bracket: the token setter declines them and
        // the plain path reads them.
        MmCtrl => Setter::Token(set_text::<MmCtrl>),
        LwCtrl => Setter::Token(set_text::<LwCtrl>),
        DtypePair => Setter::Token(set_dtype_pair),
        Opcode => Setter::Token(set_text::<Opcode>),
        Bytes<1> => Setter::Token(set_text::<Bytes<1>>),
        Bytes<2> => Setter::Token(set_text::<Bytes<2>>),
        Bytes<3> => Setter::Token(set_text::<Bytes<3>>),
        Bytes<4> => Setter::Token(set_text::<Bytes<4>>),
        Bytes<5> => Setter::Token(set_text::<Bytes<5>>),
        Bytes<6> => Setter::Token(set_text::<Bytes<6>>),
        Bytes<9> => Setter::Token(set_text::<Bytes<9>>),
        Bytes<12> => Setter::Token(set_text::<Bytes<12>>),
        Bytes<15> => Setter::Token(set_text::<Bytes<15>>),
        Bytes<16> => Setter::Token(set_text::<Bytes<16>>),
        Bytes<17> => Setter::Token(set_text::<Bytes<17>>),
        Bytes<20> => Setter::Token(set_text::<Bytes<20>>),
        Bytes<52> => Setter::Token(set_text::<Bytes<52>>),
        Bytes<30> => Setter::Token(set_text::<Bytes<30>>),
        Bytes<32> => Setter::Token(set_text::<Bytes<32>>),
        Bytes<48> => Setter::Token(set_text::<Bytes<48>>),
        u16 => Setter::Token(set_text::<u16>),
        u64 => Setter::Token(set_text::<u64>),
        DgeComputeOp => Setter::Token(set_enum::<DgeComputeOp>),
        DgeOpcode => Setter::Token(set_enum::<DgeOpcode>),
        DataSrc => Setter::Token(set_enum::<DataSrc>),
        crate::wire::Addr8 => Setter::Token(set_text::<crate::wire::Addr8>),
        crate::wire::DmaPattern<1> => Setter::Token(set_text::<crate::wire::DmaPattern<1>>),
        crate::wire::DmaPattern<2> => Setter::Token(set_text::<crate::wire::DmaPattern<2>>),
        crate::wire::Addr4 => Setter::Token(set_text::<crate::wire::Addr4>),
    );
    None
}

/// The field's own text rule (what the plain path calls), without the `dyn` hop.
fn set_text<T: Field>(s: &str, gen: Gen, out: &mut [u8]) -> Option<Set> {
    T::parse_text(s, gen).ok()?.write(out);
    Some(Set::Done)
}

/// A name or alias as written in the table (other spellings: the plain path).
fn set_enum<T: FastEnum>(s: &str, _: Gen, out: &mut [u8]) -> Option<Set> {
    let v = tables().enums[T::INDEX].get(s.as_bytes())?;
    T::from_raw(u8::try_from(v).ok()?).write(out);
    Some(Set::Done)
}

/// `IN->OUT` dtype names.
fn set_dtype_pair(s: &str, _: Gen, out: &mut [u8]) -> Option<Set> {
    let (lo, hi) = s.split_once("->")?;
    let dtypes = &tables().enums[Dtype::INDEX];
    let (lo, hi) = (dtypes.get(lo.as_bytes())?, dtypes.get(hi.as_bytes())?);
    if lo > 0xF || hi > 0xF {
        return None;
    }
    DtypePair::new(Dtype::from_raw(lo as u8), Dtype::from_raw(hi as u8)).write(out);
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
            Setter::Token(set) => {
                let start = pos;
                pos += b[pos..]
                    .iter()
                    .take_while(|&&c| class(c) & (WS | BRACKET) == 0)
                    .count();
                if pos == start || b.get(pos).is_some_and(|&c| class(c) == BRACKET) {
                    return None;
                }
                set(&code[start..pos], gen, field)?
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
    /// path for want of one (a new field type must be added to `setter_for`).
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
