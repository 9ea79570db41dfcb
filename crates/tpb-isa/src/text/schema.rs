//! What the text layer knows about fields: their written form, the short names, and how to
//! reach a field of an [`Instruction`] by name.

use crate::wire::{
    Body, EnumValue, Events, FieldDyn, FieldMeta, Header, Instruction, Opaque, TextRef,
};

/// Short field names the assembler accepts (case-insensitive, like every field name), each
/// with the header names it stands for; the first one the instruction's struct has wins.
/// `disasm` always prints the header names.
pub const FIELD_ALIASES: &[(&str, &[&str])] = &[
    (
        "src",
        &["src_mem_pattern", "src0_mem_pattern", "src_data_pattern"],
    ),
    ("dst", &["dst_mem_pattern"]),
    ("mask", &["mask_pattern"]),
    ("pattern", &["mask_pattern", "src_data_pattern"]),
    ("channels", &["num_active_channels"]),
    ("reverse", &["reverse_operands"]),
    ("in", &["in_dtype"]),
    ("out", &["out_dtype"]),
    ("dtypes", &["in_out_dtype", "in0_in1_dtype"]),
    ("cmp", &["fill_mode"]),
    ("multiplier", &["channel_multiplier"]),
];

/// The header field that the mnemonic sets; it cannot be written as `opcode=`.
pub(crate) const OPCODE_FIELD: &str = "opcode";

/// The field that partition ranges (`sbuf[p0..128]`) set.
pub(crate) const CHANNELS_FIELD: &str = "num_active_channels";

/// How a field is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Form {
    /// `TENSOR{N}D`: `ADDRESS:[[step,num],…]` with this many slots.
    Tensor(usize),
    /// `DATA4D`: `BASE:[[step,num],…]`.
    Data4d,
    /// An enumeration: a name (case-insensitive) or a number.
    Enum,
    /// Everything else (integers, `IN->OUT` dtypes, fp32 words, immediates, raw bytes).
    Plain,
}

pub(crate) use crate::wire::field::for_each_enum_field;

impl Form {
    /// The form of a field, from its value's [`TextRef`] (a constant on a known type).
    #[inline(always)]
    pub(crate) fn of(t: &TextRef<'_>) -> Form {
        match t {
            TextRef::Tensor(t) => Form::Tensor(t.num_elem.len()),
            TextRef::Data4d(_) => Form::Data4d,
            TextRef::Enum(_) => Form::Enum,
            _ => Form::Plain,
        }
    }
}

/// The form of a field, from its type.
pub(crate) fn form_of(f: &dyn FieldDyn) -> Form {
    Form::of(&f.text_value())
}

/// Whether `disasm` prints the field even at its default value: the fields that say what an
/// instruction does (operands, dtypes, ALU ops, the channel count). Everything else is
/// printed only when it differs from [`Instruction::new`].
pub(crate) fn always_printed(meta: &FieldMeta, f: &dyn FieldDyn) -> bool {
    always_printed_ref(meta.name, &f.text_value())
}

/// [`always_printed`] on the field `name` by its value's form (inlined: the disassembler
/// calls it on fields of known type, where it folds to a constant).
#[inline(always)]
pub(crate) fn always_printed_ref(name: &str, t: &TextRef<'_>) -> bool {
    matches!(
        t,
        TextRef::Tensor(_)
            | TextRef::Data4d(_)
            | TextRef::Enum(EnumValue::Dtype(_) | EnumValue::AluOp(_))
            | TextRef::DtypePair(_)
    ) || name == CHANNELS_FIELD
}

/// The part of a bundle that holds a field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Part {
    Header,
    Events,
    Body,
}

/// Every field name `inst` has, in the order they are listed in messages: body first, then
/// the events and header (without `opcode`, which the mnemonic sets).
pub(crate) fn field_names(inst: &Instruction) -> Vec<&'static str> {
    let mut v: Vec<&'static str> = inst.body.fields().iter().map(|(m, _)| m.name).collect();
    v.extend(Events::LAYOUT.iter().map(|m| m.name));
    v.extend(
        Header::LAYOUT
            .iter()
            .map(|m| m.name)
            .filter(|n| *n != OPCODE_FIELD),
    );
    v
}

/// The body's field layout: static, so name lookups on the assembler's happy path allocate
/// nothing (`Body::fields` builds a vector).
fn body_layout(inst: &Instruction) -> &'static [FieldMeta] {
    match inst.body.kind() {
        Some(k) => Body::layout(k),
        None => Opaque::LAYOUT,
    }
}

/// Which part holds `name`, if `inst` has such a field.
pub(crate) fn part_of(inst: &Instruction, name: &str) -> Option<Part> {
    if Header::LAYOUT.iter().any(|m| m.name == name) {
        Some(Part::Header)
    } else if Events::LAYOUT.iter().any(|m| m.name == name) {
        Some(Part::Events)
    } else if body_layout(inst).iter().any(|m| m.name == name) {
        Some(Part::Body)
    } else {
        None
    }
}

/// `name` as the `&'static` field name of `inst` it equals (the order of [`field_names`]).
fn field_name(inst: &Instruction, name: &str) -> Option<&'static str> {
    body_layout(inst)
        .iter()
        .chain(Events::LAYOUT)
        .chain(Header::LAYOUT.iter().filter(|m| m.name != OPCODE_FIELD))
        .find(|m| m.name == name)
        .map(|m| m.name)
}

/// Resolves a written key (a header name or a short name, any case) to the field name of
/// `inst` it denotes.
pub(crate) fn resolve_key(inst: &Instruction, key: &str) -> Option<&'static str> {
    let lower;
    let key = if key.bytes().any(|b| b.is_ascii_uppercase()) {
        lower = key.to_ascii_lowercase();
        lower.as_str()
    } else {
        key
    };
    if let Some(n) = field_name(inst, key) {
        return Some(n);
    }
    if key == OPCODE_FIELD {
        return Some(OPCODE_FIELD);
    }
    let (_, targets) = FIELD_ALIASES.iter().find(|(a, _)| *a == key)?;
    targets.iter().find_map(|t| field_name(inst, t))
}

/// The short names that apply to `inst`, as `alias=target` for messages.
pub(crate) fn aliases_for(inst: &Instruction) -> Vec<String> {
    FIELD_ALIASES
        .iter()
        .filter_map(|(a, _)| resolve_key(inst, a).map(|t| format!("{a} ({t})")))
        .collect()
}

/// Runs `f` on the field `name` of `inst`, if it exists.
pub(crate) fn with_field<R>(
    inst: &Instruction,
    name: &str,
    f: impl FnOnce(&FieldMeta, &dyn FieldDyn) -> R,
) -> Option<R> {
    let fields = match part_of(inst, name)? {
        Part::Header => inst.header.fields(),
        Part::Events => inst.events.fields(),
        Part::Body => inst.body.fields(),
    };
    let (meta, field) = fields.into_iter().find(|(m, _)| m.name == name)?;
    Some(f(meta, field))
}

/// Runs `f` on the field `name` of `inst`, mutably, if it exists.
pub(crate) fn with_field_mut<R>(
    inst: &mut Instruction,
    name: &str,
    f: impl FnOnce(&mut dyn FieldDyn) -> R,
) -> Option<R> {
    let fields = match part_of(inst, name)? {
        Part::Header => inst.header.fields_mut(),
        Part::Events => inst.events.fields_mut(),
        Part::Body => inst.body.fields_mut(),
    };
    let (_, field) = fields.into_iter().find(|(m, _)| m.name == name)?;
    Some(f(field))
}
