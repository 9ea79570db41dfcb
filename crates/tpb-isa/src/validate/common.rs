//! Predicates shared by every chain: header, events, channel range, dtypes, reserved
//! bytes, descriptor validity (`tensorNd_valid`) and `start_addr_active_channels`.

use super::{Confidence, Ctx, Detail, Flow, Rule};
use crate::gen::Gen;
use crate::geometry::{Geometry, Space, NUM_CHANNELS, NUM_REGISTERS};
use crate::tables::{AluOp, CodeEnum, Dtype};
use crate::wire::{Addr4, AddrForm, Events, Field, FieldMeta, Header, Tensor, View, INST_WORD_LEN};
use std::ops::Range;
use Confidence::{Assumed, Inferred, Observed};

macro_rules! rule {
    ($id:ident, $name:literal, $clause:literal, $src:literal, $conf:expr) => {
        pub(crate) static $id: $crate::validate::Rule = $crate::validate::Rule {
            name: $name,
            clause: $clause,
            source: $src,
            confidence: $conf,
            lint: false,
        };
    };
    ($id:ident, $name:literal, $clause:literal, $src:literal, $conf:expr, lint) => {
        pub(crate) static $id: $crate::validate::Rule = $crate::validate::Rule {
            name: $name,
            clause: $clause,
            source: $src,
            confidence: $conf,
            lint: true,
        };
    };
}
pub(crate) use rule;

rule!(
    HEADER_WORD_LEN,
    "has_valid_neuron_header",
    "inst_word_len == 0x10",
    "isa-facts §1.2",
    Observed
);
rule!(
    HEADER_OPCODE,
    "has_valid_neuron_header",
    "opcode is defined on this generation and modelled by tpb",
    "isa-facts §1.2, decisions §1.6",
    Observed
);
rule!(
    EVENTS_WAIT,
    "has_valid_neuron_events",
    "is_valid_enum(WAIT_MODE, wait_mode)",
    "isa-facts §1.3",
    Observed
);
rule!(
    EVENTS_UPDATE,
    "has_valid_neuron_events",
    "is_valid_enum(UPDATE_MODE, update_mode)",
    "isa-facts §1.3",
    Observed
);
rule!(
    CHANNEL_RANGE,
    "has_valid_active_channel_range",
    "1 <= num_active_channels <= 128",
    "seed 000 §5c, isa-facts §11",
    Observed
);
rule!(
    CHANNEL_RANGE_TILE,
    "has_valid_active_channel_range_with_tile",
    "1 <= num_active_channels <= 128 (tile relaxation not public)",
    "decisions §2.3",
    Assumed
);
rule!(
    START_PARTITIONS,
    "start_addr_active_channels",
    "start partition + num_active_channels <= 128",
    "decisions §2.2",
    Assumed
);
rule!(
    START_OFFSET,
    "start_addr_active_channels",
    "byte offset inside the partition's active bytes",
    "decisions §2.2",
    Assumed
);
rule!(
    PLACEMENT_LINT,
    "partition_placement",
    "n > 64 starts at 0; n > 32 at 0 or 64; else at a multiple of 32",
    "isa-facts §2.2 (compiler rule)",
    Inferred,
    lint
);
rule!(
    ADDR_MARKER,
    "tensor_start_addr_valid",
    "ADDR4 marker is immediate, register, indirect or shape-from-register",
    "isa-facts §2.1",
    Observed
);
rule!(
    ADDR_REG,
    "tensor_start_addr_valid",
    "register-form address names a register < 64",
    "isa-facts §2.2",
    Observed
);
rule!(
    ADDR_REGION,
    "tensor_start_addr_valid",
    "addr_in_sbuf(a) || addr_in_psum(a)",
    "isa-facts §2.2",
    Observed
);
rule!(
    ADDR_ALIGNED,
    "addr_aligned_dtype",
    "address naturally aligned to the dtype size",
    "isa-facts §2.2",
    Observed
);
rule!(
    ADDR_PSUM_ALLOWED,
    "tensor_start_addr_valid",
    "allowed_in_psum || !addr_in_psum(a)",
    "isa-facts §2.2",
    Observed
);
rule!(
    ADDR_SBUF_ALLOWED,
    "tensor_start_addr_valid",
    "allowed_in_sbuf || !addr_in_sbuf(a)",
    "isa-facts §2.2",
    Observed
);
rule!(
    ADDR_PSUM_WRITE,
    "tensor_start_addr_valid",
    "a PSUM write needs a 4-byte dtype",
    "isa-facts §2.2",
    Observed
);
rule!(
    NUM_NONZERO_1D,
    "tensor1d_valid",
    "every num_elem != 0",
    "isa-facts §3.2",
    Observed
);
rule!(
    NUM_NONZERO_2D,
    "tensor2d_valid",
    "every num_elem != 0",
    "isa-facts §3.2",
    Observed
);
rule!(
    NUM_NONZERO_3D,
    "tensor3d_valid",
    "every num_elem != 0",
    "seed 001 'Decoder proof', isa-facts §3.2",
    Observed
);
rule!(
    NUM_NONZERO_4D,
    "tensor4d_valid",
    "every num_elem != 0",
    "seed 001 'Decoder proof', isa-facts §3.2",
    Observed
);

/// The count sweep's rule for an N-dimensional descriptor, named as the header names it.
fn num_nonzero_rule(n: usize) -> &'static Rule {
    match n {
        1 => &NUM_NONZERO_1D,
        2 => &NUM_NONZERO_2D,
        3 => &NUM_NONZERO_3D,
        _ => &NUM_NONZERO_4D,
    }
}
rule!(
    DTYPE_VALID_IN,
    "is_valid_dtype",
    "input dtype is a plain datapath type (FP32R not allowed)",
    "isa-facts §4.4",
    Observed
);
rule!(
    DTYPE_VALID_OUT,
    "is_valid_dtype",
    "output dtype is a plain datapath type or FP32R",
    "isa-facts §4.4",
    Observed
);
rule!(
    ALUOP_VALID,
    "is_valid_aluop",
    "is_valid_enum(AluOp, op) on this generation",
    "isa-facts §5.1",
    Observed
);
rule!(
    REGISTER_READ,
    "is_valid_register_read",
    "register index < 64",
    "decisions §2.5",
    Assumed
);
rule!(
    IMM_REG,
    "is_valid_imm_reg",
    "register index < 64",
    "isa-facts §2.2",
    Observed
);

/// Where a finding points: a field of the wire layout (or a named part of it), with the
/// byte range the layout gives. Built from `FieldMeta`s only, so no byte offset is written
/// twice (issue 7: a test checks every reported range against the layout).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Loc {
    prefix: &'static str,
    name: &'static str,
    suffix: &'static str,
    index: Option<usize>,
    start: usize,
    end: usize,
}

impl Loc {
    /// A whole field.
    pub(crate) const fn field(f: FieldMeta) -> Loc {
        Loc {
            prefix: "",
            name: f.name,
            suffix: "",
            index: None,
            start: f.offset,
            end: f.offset + f.size,
        }
    }

    /// The same bytes under a path prefix (`header.`, `events.`).
    pub(crate) const fn under(self, prefix: &'static str) -> Loc {
        Loc { prefix, ..self }
    }

    /// A named view of the same bytes (`in_out_dtype.dtype_lo`).
    pub(crate) const fn part(self, suffix: &'static str) -> Loc {
        Loc { suffix, ..self }
    }

    /// A descriptor's `start_addr` (bytes +0..+4).
    pub(crate) const fn start_addr(self) -> Loc {
        Loc {
            suffix: ".start_addr",
            end: self.start + 4,
            ..self
        }
    }

    /// A `TENSOR4D`'s second address in the indirect form (bytes +4..+8, seed 001).
    pub(crate) const fn indirect_addr(self) -> Loc {
        Loc {
            suffix: ".indirect_addr",
            start: self.start + 4,
            end: self.start + 8,
            ..self
        }
    }

    /// A `TENSOR{N}D`/`DATA4D` descriptor's counts, `num_elem[0..N]`.
    pub(crate) const fn num_elem<const N: usize>(self) -> Loc {
        Loc {
            suffix: ".num_elem",
            start: self.start + Tensor::<N>::num_offset(0),
            ..self
        }
    }

    /// One count, `num_elem[i]`.
    pub(crate) const fn num_elem_at<const N: usize>(self, i: usize) -> Loc {
        let start = self.start + Tensor::<N>::num_offset(i);
        Loc {
            suffix: ".num_elem",
            index: Some(i),
            start,
            end: start + 2,
            ..self
        }
    }

    /// The field path.
    pub(crate) fn path(&self) -> String {
        let mut p = format!("{}{}{}", self.prefix, self.name, self.suffix);
        if let Some(i) = self.index {
            p += &format!("[{i}]");
        }
        p
    }

    /// The byte range within the bundle.
    pub(crate) const fn range(&self) -> Range<usize> {
        self.start..self.end
    }
}

/// The layout location of `Struct.field`, checked when the crate builds.
macro_rules! at {
    ($S:ident . $f:ident) => {
        $crate::validate::common::Loc::field({
            const F: $crate::wire::FieldMeta =
                match $crate::wire::FieldMeta::find(<$S>::LAYOUT, stringify!($f)) {
                    Some(f) => f,
                    None => panic!(concat!(stringify!($S), " has no field ", stringify!($f))),
                };
            F
        })
    };
}
pub(crate) use at;

/// A detail record for one location.
pub(crate) fn detail(at: Loc, value: impl ToString, allowed: impl Into<String>) -> Detail {
    Detail {
        field: at.path(),
        bytes: at.range(),
        value: value.to_string(),
        allowed: allowed.into(),
    }
}

/// A detail record for a rule over two fields (`in_dtype/out_dtype`): both paths, and the
/// bytes from the first's start to the second's end.
pub(crate) fn detail2(a: Loc, b: Loc, value: impl ToString, allowed: impl Into<String>) -> Detail {
    Detail {
        field: format!("{}/{}", a.path(), b.path()),
        bytes: a.start.min(b.start)..a.end.max(b.end),
        value: value.to_string(),
        allowed: allowed.into(),
    }
}

#[inline(always)]
pub(crate) fn header_and_events<const M: u8>(
    cx: &mut Ctx<M>,
    h: View<'_, Header>,
    e: View<'_, Events>,
    modelled: bool,
    word_len: bool,
) -> Flow {
    if word_len {
        cx.check(&HEADER_WORD_LEN, h.inst_word_len() == INST_WORD_LEN, || {
            detail(
                at!(Header.inst_word_len).under("header."),
                format!("{:#04x}", h.inst_word_len()),
                "0x10",
            )
        })?;
    }
    let gen = cx.gen;
    cx.check(&HEADER_OPCODE, modelled, || {
        // Named, not listed: the list grows with the opcode table (issue 16 item 4).
        detail(
            at!(Header.opcode).under("header."),
            format!("{:#04x} ({})", h.opcode().0, h.opcode().describe()),
            format!("an opcode tpb models on {gen} (the opcode table in README.md)"),
        )
    })?;
    cx.check(&EVENTS_WAIT, e.wait_mode().is_valid(gen), || {
        detail(
            at!(Events.wait_mode).under("events."),
            e.wait_mode(),
            enum_names::<crate::tables::WaitMode>(gen),
        )
    })?;
    cx.check(&EVENTS_UPDATE, e.update_mode().is_valid(gen), || {
        detail(
            at!(Events.update_mode).under("events."),
            e.update_mode(),
            enum_names::<crate::tables::UpdateMode>(gen),
        )
    })?;
    Ok(())
}

/// The names a generation allows for an enumeration, for `allowed` strings.
pub(crate) fn enum_names<E: CodeEnum>(gen: Gen) -> String {
    E::names_for(gen).join(", ")
}

/// `has_valid_active_channel_range` (maverick: `_with_tile`, decisions §2.3).
#[inline(always)]
pub(crate) fn channel_range<const M: u8>(cx: &mut Ctx<M>, n: u8, at: Loc) -> Flow {
    let rule = if cx.gen == Gen::Maverick {
        &CHANNEL_RANGE_TILE
    } else {
        &CHANNEL_RANGE
    };
    cx.check(rule, (1..=NUM_CHANNELS).contains(&(n as u32)), || {
        detail(at, n, "1..=128")
    })?;
    Ok(())
}

/// `*_reserved_zero` for one reserved field.
#[inline(always)]
pub(crate) fn reserved_zero<const M: u8>(
    cx: &mut Ctx<M>,
    rule: &'static Rule,
    at: Loc,
    bytes: &[u8],
) -> Flow {
    cx.check(rule, bytes.iter().all(|&b| b == 0), || {
        detail(at, crate::wire::field::hex(bytes), "all zero")
    })?;
    Ok(())
}

#[inline(always)]
pub(crate) fn dtype_in<const M: u8>(cx: &mut Ctx<M>, d: Dtype, at: Loc) -> Flow {
    cx.check(&DTYPE_VALID_IN, d.is_valid_dtype(false), || {
        detail(at, d, PLAIN_DTYPES)
    })?;
    Ok(())
}

#[inline(always)]
pub(crate) fn dtype_out<const M: u8>(cx: &mut Ctx<M>, d: Dtype, at: Loc) -> Flow {
    cx.check(&DTYPE_VALID_OUT, d.is_valid_dtype(true), || {
        detail(at, d, format!("{PLAIN_DTYPES}, fp32r"))
    })?;
    Ok(())
}

pub(crate) const PLAIN_DTYPES: &str =
    "int8, uint8, int16, uint16, bfloat16, fp16, int32, uint32, fp32, fp8_exp3, fp8_exp4, fp8_exp5";

#[inline(always)]
pub(crate) fn aluop_valid<const M: u8>(cx: &mut Ctx<M>, op: AluOp, at: Loc) -> Flow {
    let gen = cx.gen;
    cx.check(&ALUOP_VALID, op.defined_on(gen), || {
        detail(at, op, format!("the ALU_OP enum of {gen}"))
    })?;
    Ok(())
}

/// A descriptor operand's role, as the header's `tensorNd_valid` arguments give it.
#[derive(Clone, Copy)]
pub(crate) struct Operand {
    /// The descriptor field, e.g(). `src_mem_pattern`.
    pub at: Loc,
    /// Element dtype.
    pub dtype: Dtype,
    /// `WriteTensor`.
    pub write: bool,
    /// `AllowedInPSUM`.
    pub psum: bool,
    /// `AllowedInSBUF`.
    pub sbuf: bool,
}

impl Operand {
    /// The memories this operand may be in, from its `AllowedInPSUM` / `AllowedInSBUF`
    /// flags: the allowed set of both placement clauses, passing or failing.
    pub(crate) fn spaces_allowed(&self, gen: Gen) -> String {
        match (self.sbuf, self.psum) {
            (true, true) => format!("SBUF or PSUM for this operand on {gen}"),
            (true, false) => format!("SBUF only for this operand on {gen}"),
            (false, true) => format!("PSUM only for this operand on {gen}"),
            (false, false) => format!("neither SBUF nor PSUM for this operand on {gen}"),
        }
    }
}

/// Who decides the dtype an operand may write to PSUM.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PsumWrite {
    /// `tensor_start_addr_valid`'s own clause: a 4-byte dtype (isa-facts §2.2).
    FourByte,
    /// The instruction's own per-generation out-dtype rule, already checked (Matmul's
    /// `has_valid_mm_out_dtype`, isa-facts-pe-act-dma §1.6): the operand's dtype is one it
    /// admits, so the generic clause does not judge it again.
    DecidedByOutDtypeRule,
}

/// `tensorNd_valid` / `memNd_valid` (isa-facts §2.2, §3.5; decisions §2.4).
#[inline(always)]
pub(crate) fn tensor_valid<const N: usize, const M: u8>(
    cx: &mut Ctx<M>,
    t: &Tensor<N>,
    op: Operand,
) -> Flow {
    tensor_valid_writing(cx, t, op, PsumWrite::FourByte)
}

/// [`tensor_valid`] with the PSUM-write dtype decided as `psum_write` says.
#[inline(always)]
pub(crate) fn tensor_valid_writing<const N: usize, const M: u8>(
    cx: &mut Ctx<M>,
    t: &Tensor<N>,
    op: Operand,
    psum_write: PsumWrite,
) -> Flow {
    let gen = cx.gen;
    let a = t.start_addr;
    let addr = op.at.start_addr();
    let form = a.form();
    if !cx.check(&ADDR_MARKER, form != AddrForm::Malformed, || {
        detail(
            addr,
            format!("{:#010x} (marker {:#04x})", a.0, a.marker()),
            "markers 0x00, 0x20, 0x40, 0x80, 0xa0, 0xc0",
        )
    })? {
        return Ok(());
    }
    if let (Some(second), true) = (t.indirect_addr(), op.write) {
        // mem4d_valid's indirect branch (seed 001 "mem4d_valid — the destination check"):
        // the first window is checked as a uint32 access, the word at +4 is a second
        // address checked with the operand's dtype, and the count sweep is skipped.
        let first = Operand {
            dtype: Dtype::UINT32,
            ..op
        };
        start_addr_checks(cx, a, first, addr, gen, psum_write)?;
        start_addr_checks(cx, second, op, op.at.indirect_addr(), gen, psum_write)?;
        return Ok(());
    }
    if let AddrForm::Register(r) = form {
        // Placement is resolved at run time (isa-facts §2.2 step 1).
        cx.check(&ADDR_REG, (r as u32) < NUM_REGISTERS, || {
            detail(addr, format!("reg[{r}]"), "reg[0..64]")
        })?;
    } else {
        start_addr_checks(cx, a, op, addr, gen, psum_write)?;
    }
    if !a.shape_from_register() {
        for i in 0..N {
            cx.check(num_nonzero_rule(N), t.num_elem[i] != 0, || {
                detail(op.at.num_elem_at::<N>(i), t.num_elem[i], "1..=65535")
            })?;
        }
    }
    Ok(())
}

#[inline(always)]
fn start_addr_checks<const M: u8>(
    cx: &mut Ctx<M>,
    a: Addr4,
    op: Operand,
    addr: Loc,
    gen: Gen,
    psum_write: PsumWrite,
) -> Flow {
    let g = Geometry::of(gen);
    let b = a.byte_addr();
    let shown = || format!("{:#010x} ({})", a.0, a.to_text(gen));
    let size = op.dtype.size();
    cx.check(&ADDR_ALIGNED, aligned(b, size), || {
        let allowed = match size {
            Some(s) => format!("a multiple of {s} for {}", op.dtype),
            None => format!("{} has no byte size", op.dtype),
        };
        detail(addr, shown(), allowed)
    })?;
    let in_psum = g.in_psum(b);
    let in_sbuf = !in_psum && g.in_sbuf(b);
    let region_allowed = || {
        if g.psum_buf_sz == 0 {
            format!("SBUF 0..{:#x} ({gen} has no PSUM)", g.state_buf_sz)
        } else {
            format!(
                "SBUF 0..{:#x} or PSUM {:#x}..{:#x}",
                g.state_buf_sz,
                g.psum_base,
                g.psum_base + g.psum_buf_sz
            )
        }
    };
    if !cx.check(&ADDR_REGION, in_psum || in_sbuf, || {
        detail(addr, shown(), region_allowed())
    })? {
        return Ok(());
    }
    cx.check(&ADDR_PSUM_ALLOWED, op.psum || !in_psum, || {
        detail(addr, shown(), op.spaces_allowed(gen))
    })?;
    cx.check(&ADDR_SBUF_ALLOWED, op.sbuf || !in_sbuf, || {
        detail(addr, shown(), op.spaces_allowed(gen))
    })?;
    if psum_write == PsumWrite::DecidedByOutDtypeRule {
        return Ok(());
    }
    cx.check(
        &ADDR_PSUM_WRITE,
        !(op.write && in_psum) || size == Some(4),
        || {
            detail(
                addr,
                format!("{} written as {}", shown(), op.dtype),
                "int32, uint32, fp32, fp32r when writing PSUM",
            )
        },
    )?;
    Ok(())
}

/// `start_addr_active_channels(start_addr, n)` (ASSUMED, decisions §2.2) plus the
/// compiler's quadrant placement rule as a lint.
#[inline(always)]
pub(crate) fn start_addr_active_channels<const M: u8>(
    cx: &mut Ctx<M>,
    a: Addr4,
    n: u8,
    at: Loc,
) -> Flow {
    let gen = cx.gen;
    let Some((space, p, o)) = a.locate(gen) else {
        return Ok(());
    };
    let g = Geometry::of(gen);
    let n = n as u32;
    let addr = at.start_addr();
    cx.check(&START_PARTITIONS, p + n <= g.partitions, || {
        detail(
            addr,
            format!("partition {p} + {n} channels"),
            format!("start partition <= {}", g.partitions.saturating_sub(n)),
        )
    })?;
    let active = g.active_bytes(space);
    cx.check(&START_OFFSET, o < active, || {
        detail(
            addr,
            format!("{} offset {o:#x}", space.name()),
            format!("< {active:#x} on {gen}"),
        )
    })?;
    if space == Space::Sbuf || space == Space::Psum {
        let ok = match n {
            65.. => p == 0,
            33..=64 => p == 0 || p == 64,
            _ => p % 32 == 0,
        };
        cx.check(&PLACEMENT_LINT, ok, || {
            detail(
                addr,
                format!("start partition {p} for {n} channels"),
                "0 (n>64); 0 or 64 (n>32); 0/32/64/96",
            )
        })?;
    }
    Ok(())
}

/// `addr_aligned_dtype`: a multiple of the element size. Every sized dtype is 1, 2 or 4
/// bytes, a power of two, so this is a mask rather than a division (the verdict's hot path);
/// an unsized dtype is never aligned.
#[inline(always)]
pub(crate) fn aligned(b: u32, size: Option<usize>) -> bool {
    size.is_some_and(|s| s.is_power_of_two() && b as usize & (s - 1) == 0)
}

/// Element count of a descriptor, for messages.
pub(crate) fn count_text<const N: usize>(t: &Tensor<N>) -> String {
    let dims: Vec<String> = t.num_elem.iter().map(|n| n.to_string()).collect();
    format!("{} ({})", t.element_count(), dims.join("×"))
}
