//! Descriptor-level field types: ADDR4, TENSOR1D..4D (= MEM_PATTERN), DATA4D, DTYPE_PAIR,
//! IMM_VAL_INST_FIELD and raw FP32 words (isa-facts §2–§4, seed 001).

use super::field::{le_bytes, parse_int, put_bytes, Field};
use super::memref::{parse_mem_ref, Offset};
use crate::gen::Gen;
use crate::geometry::{Geometry, Space, NUM_REGISTERS, PARTITION_ADDR_MASK};
use crate::tables::{CodeEnum, Dtype};

/// The ADDR4 start-address word (isa-facts §2.1): a 29-bit byte address plus marker bits
/// 29..31, or a register reference.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, Debug)]
pub struct Addr4(pub u32);

/// How an ADDR4 word is to be read, from its marker byte (`common.h:486-491`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddrForm {
    /// Marker 0x00: an immediate byte address.
    Immediate,
    /// Marker 0x80 with bits 8..28 clear: the address is in register `reg`.
    Register(u8),
    /// Marker 0x20 / 0xA0: the indirect (gather / second-address) form.
    Indirect,
    /// Marker 0x40 / 0xC0: the shape is taken from registers.
    ShapeFromRegister,
    /// Any other marker combination (e.g. 0x60, or 0x80 with stray address bits).
    Malformed,
}

impl Addr4 {
    /// `ADDR4_MARKER_IMM`.
    pub const MARKER_IMM: u8 = 0x00;
    /// `INDIRECT_IMM`.
    pub const MARKER_INDIRECT: u8 = 0x20;
    /// `SHAPE_REG`.
    pub const MARKER_SHAPE_REG: u8 = 0x40;
    /// `ADDR_REG`.
    pub const MARKER_ADDR_REG: u8 = 0x80;

    /// The marker bits (29..31) as the high byte's top three bits.
    pub const fn marker(self) -> u8 {
        ((self.0 >> 24) as u8) & 0xE0
    }

    /// The masked 29-bit byte address.
    pub const fn byte_addr(self) -> u32 {
        self.0 & PARTITION_ADDR_MASK
    }

    /// The form this word takes.
    #[inline(always)]
    pub const fn form(self) -> AddrForm {
        match self.marker() {
            0x00 => AddrForm::Immediate,
            0x80 if self.0 & 0x1FFF_FF00 == 0 => AddrForm::Register(self.0 as u8),
            0x20 | 0xA0 => AddrForm::Indirect,
            0x40 | 0xC0 => AddrForm::ShapeFromRegister,
            _ => AddrForm::Malformed,
        }
    }

    /// `shape_from_register(start_addr)`: marker SHAPE_REG or ADDR_SHAPE_REG.
    pub const fn shape_from_register(self) -> bool {
        self.marker() & 0xE0 == 0x40 || self.marker() == 0xC0
    }

    /// An immediate address at (space, partition, offset) for `gen`.
    pub const fn at(gen: Gen, space: Space, partition: u32, offset: u32) -> Option<Addr4> {
        match Geometry::of(gen).address(space, partition, offset) {
            Some(a) => Some(Addr4(a)),
            None => None,
        }
    }

    /// A register-form address.
    pub const fn register(reg: u8) -> Addr4 {
        Addr4(0x8000_0000 | reg as u32)
    }

    /// Where an immediate address points for `gen`: (space, start partition, offset).
    #[inline(always)]
    pub const fn locate(self, gen: Gen) -> Option<(Space, u32, u32)> {
        match self.form() {
            AddrForm::Immediate => Geometry::of(gen).locate(self.0),
            _ => None,
        }
    }
}

impl Field for Addr4 {
    const SIZE: usize = 4;
    #[inline(always)]
    fn text_ref(&self) -> crate::wire::field::TextRef<'_> {
        crate::wire::field::TextRef::Addr4(*self)
    }
    #[inline]
    fn read(b: &[u8]) -> Self {
        Addr4(u32::read(b))
    }
    #[inline]
    fn write(&self, b: &mut [u8]) {
        self.0.write(b)
    }
    fn to_text(&self, gen: Gen) -> String {
        match self.form() {
            AddrForm::Register(r) if u32::from(r) < NUM_REGISTERS => format!("reg[{r}]"),
            AddrForm::Immediate => match self.locate(gen) {
                Some((sp, p, off)) => format!("{}[p{p}]+{off:#x}", sp.name()),
                None => format!("{:#010x}", self.0),
            },
            _ => format!("{:#010x}", self.0),
        }
    }
    fn parse_text(s: &str, gen: Gen) -> Result<Self, String> {
        let s = s.trim();
        let l = s.to_ascii_lowercase();
        if let Some(r) = l.strip_prefix("reg[").and_then(|r| r.strip_suffix(']')) {
            let r = parse_int(r)
                .filter(|v| (0..NUM_REGISTERS as i128).contains(v))
                .ok_or_else(|| format!("register `{r}` is not in 0..{NUM_REGISTERS}"))?;
            return Ok(Addr4::register(r as u8));
        }
        for space in [Space::Sbuf, Space::Psum] {
            let name = space.name();
            if !l.starts_with(name) {
                continue;
            }
            if !l[name.len()..].starts_with("[p") {
                return Err(format!("expected `{name}[pN]+OFFSET` in `{s}`"));
            }
            // With `name[p` in place, the only structural fault left is a missing `]`.
            let m = parse_mem_ref(&l, parse_int).map_err(|_| format!("missing `]` in `{s}`"))?;
            let p =
                m.start.value.filter(|_| m.end.is_none()).ok_or_else(|| {
                    format!("bad partition `{}` in `{s}`", &l[m.open + 2..m.close])
                })?;
            let off = match m.offset {
                Offset::Absent => 0,
                Offset::Given(o) => o.value.ok_or_else(|| format!("bad offset in `{s}`"))?,
                Offset::Malformed(_) => {
                    return Err(format!("expected `+OFFSET` after `]` in `{s}`"))
                }
            };
            let g = Geometry::of(gen);
            if !(0..g.partitions as i128).contains(&p)
                || !(0..g.stride(space) as i128).contains(&off)
            {
                return Err(format!(
                    "`{s}` is outside {} on {gen}: partition must be < {}, offset < {:#x}",
                    space.name(),
                    g.partitions,
                    g.stride(space)
                ));
            }
            return Addr4::at(gen, space, p as u32, off as u32)
                .ok_or_else(|| format!("{gen} has no {}", space.name()));
        }
        let v = parse_int(s)
            .filter(|v| (0..=u32::MAX as i128).contains(v))
            .ok_or_else(|| format!("`{s}` is not an address; expected {}", Self::expected()))?;
        Ok(Addr4(v as u32))
    }
    fn parts(&self, gen: Gen) -> Vec<(String, usize, usize, String)> {
        let meaning = match self.form() {
            AddrForm::Immediate => match self.locate(gen) {
                Some((sp, p, off)) => format!("{} partition {p}, byte offset {off:#x}", sp.name()),
                None => "immediate address outside SBUF and PSUM".to_string(),
            },
            AddrForm::Register(r) => format!("address held in register {r}"),
            AddrForm::Indirect => format!("indirect form, marker {:#04x}", self.marker()),
            AddrForm::ShapeFromRegister => {
                format!("shape from register, marker {:#04x}", self.marker())
            }
            AddrForm::Malformed => format!("malformed marker {:#04x}", self.marker()),
        };
        vec![(String::new(), 0, 4, format!("{:#010x} ({meaning})", self.0))]
    }
    fn expected() -> String {
        "an address: `sbuf[pN]+0xOFF`, `psum[pN]+0xOFF`, `reg[N]` or a raw 32-bit word".into()
    }
}

/// An N-dimensional strided access pattern (`TENSOR{N}D`, also spelt `MEM_PATTERN{N}D`):
/// ADDR4, then N signed element steps, then N unsigned counts; slot 0 is innermost
/// (isa-facts §3.1; seed 001 "The byte map").
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Tensor<const N: usize> {
    /// Start address (byte +0).
    pub start_addr: Addr4,
    /// Steps in elements (bytes +4 .. +4+2N).
    pub step_elem: [i16; N],
    /// Counts (bytes +4+2N .. +4+4N).
    pub num_elem: [u16; N],
}

/// `TENSOR1D` (8 bytes).
pub type Tensor1 = Tensor<1>;
/// `TENSOR2D` (12 bytes).
pub type Tensor2 = Tensor<2>;
/// `TENSOR3D` (16 bytes).
pub type Tensor3 = Tensor<3>;
/// `TENSOR4D` / `MEM_PATTERN4D` (20 bytes).
pub type Tensor4 = Tensor<4>;

impl<const N: usize> Default for Tensor<N> {
    fn default() -> Self {
        Tensor {
            start_addr: Addr4(0),
            step_elem: [1; N],
            num_elem: [1; N],
        }
    }
}

impl<const N: usize> Tensor<N> {
    /// Byte offset of `step_elem[i]` within the descriptor.
    pub const fn step_offset(i: usize) -> usize {
        4 + 2 * i
    }
    /// Byte offset of `num_elem[i]` within the descriptor (moves with N: seed 001 GOTCHA).
    pub const fn num_offset(i: usize) -> usize {
        4 + 2 * N + 2 * i
    }
    /// The second address of a 4D descriptor in the indirect form (marker 0x20 / 0xA0): the
    /// word at +4, where the plain form keeps `step_elem[0..2]` (seed 001 "QUIRK — an
    /// indirect 4D descriptor reinterprets +4 as a second address"). `None` otherwise.
    pub fn indirect_addr(&self) -> Option<Addr4> {
        if N != 4 || self.start_addr.form() != AddrForm::Indirect {
            return None;
        }
        let lo = u32::from(self.step_elem[0] as u16);
        let hi = u32::from(self.step_elem[1] as u16);
        Some(Addr4(lo | hi << 16))
    }

    /// Writes the second address of the indirect form into bytes +4..+8; an error unless
    /// this is a 4D descriptor whose start address has the indirect marker.
    pub fn set_indirect_addr(&mut self, second: Addr4) -> Result<(), String> {
        if N != 4 || self.start_addr.form() != AddrForm::Indirect {
            return Err(format!(
                "a second address (`{INDIRECT_SEPARATOR}`) needs a 4D descriptor whose start address has the indirect marker 0x20 or 0xa0"
            ));
        }
        if let [lo, hi, ..] = &mut self.step_elem[..] {
            *lo = second.0 as u16 as i16;
            *hi = (second.0 >> 16) as u16 as i16;
        }
        Ok(())
    }

    /// The element count: the product of the counts (`tNd_element_count`).
    pub fn element_count(&self) -> u64 {
        self.num_elem.iter().map(|&n| n as u64).product()
    }
}

fn pairs_text(steps: &[i16], nums: &[u16]) -> String {
    pairs_text_holes(steps, nums, 0)
}

/// `[[step,num],…]` with the first `holes` steps written `_` (the indirect form keeps its
/// second address there).
fn pairs_text_holes(steps: &[i16], nums: &[u16], holes: usize) -> String {
    let v: Vec<String> = steps
        .iter()
        .zip(nums)
        .enumerate()
        .map(|(i, (s, n))| {
            if i < holes {
                format!("[_,{n}]")
            } else {
                format!("[{s},{n}]")
            }
        })
        .collect();
    format!("[{}]", v.join(","))
}

/// Steps that hold the second address of an indirect `TENSOR4D` (bytes +4..+8): written `_`.
pub const INDIRECT_HOLES: usize = 2;

/// The separator between an indirect `TENSOR4D`'s two addresses in text:
/// `0x20001000|sbuf[p0]+0x100:[[_,64],[_,1],[1,1],[1,1]]`.
pub const INDIRECT_SEPARATOR: char = '|';

/// Parses `[[step,num],...]` with at most `n` pairs; missing outer slots get `{1,1}`.
pub fn parse_pairs(s: &str, n: usize) -> Result<(Vec<i16>, Vec<u16>), String> {
    parse_pairs_holes(s, n, 0)
}

/// [`parse_pairs`], with the first `holes` steps allowed to be `_` (read as 0).
pub fn parse_pairs_holes(s: &str, n: usize, holes: usize) -> Result<(Vec<i16>, Vec<u16>), String> {
    let t: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    let inner = t
        .strip_prefix('[')
        .and_then(|x| x.strip_suffix(']'))
        .ok_or_else(|| format!("expected `[[step,num],...]`, got `{s}`"))?;
    let (mut steps, mut nums) = (Vec::new(), Vec::new());
    if !inner.is_empty() {
        for p in inner.split("],") {
            let p = p.trim_start_matches('[').trim_end_matches(']');
            let (a, b) = p
                .split_once(',')
                .ok_or_else(|| format!("expected `[step,num]`, got `[{p}]`"))?;
            let st = if a == "_" && steps.len() < holes {
                0
            } else {
                parse_int(a)
                    .and_then(|v| i16::try_from(v).ok())
                    .ok_or_else(|| format!("step `{a}` is not in -32768..=32767"))?
            };
            let nm = parse_int(b)
                .and_then(|v| u16::try_from(v).ok())
                .ok_or_else(|| format!("num `{b}` is not in 0..=65535"))?;
            steps.push(st);
            nums.push(nm);
        }
    }
    if steps.len() > n {
        return Err(format!(
            "{} [step,num] pairs given but this descriptor has {n} slots",
            steps.len()
        ));
    }
    while steps.len() < n {
        steps.push(1);
        nums.push(1);
    }
    Ok((steps, nums))
}

impl<const N: usize> Field for Tensor<N> {
    const SIZE: usize = 4 + 4 * N;
    #[inline(always)]
    fn text_ref(&self) -> crate::wire::field::TextRef<'_> {
        crate::wire::field::TextRef::Tensor(crate::wire::field::TensorRef {
            start_addr: self.start_addr,
            indirect: self.indirect_addr(),
            step_elem: &self.step_elem,
            num_elem: &self.num_elem,
        })
    }
    #[inline]
    fn read(b: &[u8]) -> Self {
        let mut t = Tensor {
            start_addr: Addr4::read(b),
            step_elem: [0; N],
            num_elem: [0; N],
        };
        for i in 0..N {
            let s = Self::step_offset(i);
            let n = Self::num_offset(i);
            t.step_elem[i] = i16::from_le_bytes(le_bytes(b.get(s..).unwrap_or_default()));
            t.num_elem[i] = u16::from_le_bytes(le_bytes(b.get(n..).unwrap_or_default()));
        }
        t
    }
    #[inline]
    fn write(&self, b: &mut [u8]) {
        self.start_addr.write(b);
        for i in 0..N {
            let s = Self::step_offset(i);
            let n = Self::num_offset(i);
            put_bytes(
                b.get_mut(s..).unwrap_or_default(),
                &self.step_elem[i].to_le_bytes(),
            );
            put_bytes(
                b.get_mut(n..).unwrap_or_default(),
                &self.num_elem[i].to_le_bytes(),
            );
        }
    }
    fn to_text(&self, gen: Gen) -> String {
        match self.indirect_addr() {
            Some(second) => format!(
                "{}{INDIRECT_SEPARATOR}{}:{}",
                self.start_addr.to_text(gen),
                second.to_text(gen),
                pairs_text_holes(&self.step_elem, &self.num_elem, INDIRECT_HOLES)
            ),
            None => format!(
                "{}:{}",
                self.start_addr.to_text(gen),
                pairs_text(&self.step_elem, &self.num_elem)
            ),
        }
    }
    fn parse_text(s: &str, gen: Gen) -> Result<Self, String> {
        let (a, p) = s
            .split_once(':')
            .ok_or_else(|| format!("expected {}, got `{s}`", Self::expected()))?;
        let (a, second) = match a.split_once(INDIRECT_SEPARATOR) {
            Some((a, b)) => (a, Some(Addr4::parse_text(b, gen)?)),
            None => (a, None),
        };
        let holes = if second.is_some() { INDIRECT_HOLES } else { 0 };
        let (st, nm) = parse_pairs_holes(p, N, holes)?;
        let mut t = Tensor {
            start_addr: Addr4::parse_text(a, gen)?,
            step_elem: [0; N],
            num_elem: [0; N],
        };
        t.step_elem.copy_from_slice(&st);
        t.num_elem.copy_from_slice(&nm);
        if let Some(second) = second {
            t.set_indirect_addr(second)?;
        }
        Ok(t)
    }
    fn parts(&self, gen: Gen) -> Vec<(String, usize, usize, String)> {
        let mut v = vec![(
            ".start_addr".to_string(),
            0,
            4,
            self.start_addr.parts(gen).remove(0).3,
        )];
        let second = self.indirect_addr();
        if let Some(a) = second {
            let text = a.parts(gen).remove(0).3;
            v.push((
                ".indirect_addr".to_string(),
                4,
                4,
                format!("second address (indirect form): {text}"),
            ));
        }
        for i in (if second.is_some() { 2 } else { 0 })..N {
            v.push((
                format!(".step_elem[{i}]"),
                Self::step_offset(i),
                2,
                self.step_elem[i].to_string(),
            ));
        }
        for i in 0..N {
            v.push((
                format!(".num_elem[{i}]"),
                Self::num_offset(i),
                2,
                self.num_elem[i].to_string(),
            ));
        }
        v
    }
    fn expected() -> String {
        format!("`ADDRESS:[[step,num],...]` with up to {N} pairs, innermost first")
    }
}

/// `DATA4D` (20 bytes): an affine generator with no address: `int32 base; int16 step[4];
/// uint16 num[4]` (seed 002 §3.1). Used by Iota and AffineSelect's mask.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Data4d {
    /// The constant term (byte +0).
    pub base: i32,
    /// Per-dimension slopes (bytes +4..+12), slot 0 innermost.
    pub step_elem: [i16; 4],
    /// Per-dimension counts (bytes +12..+20).
    pub num_elem: [u16; 4],
}

impl Default for Data4d {
    fn default() -> Self {
        Data4d {
            base: 0,
            step_elem: [1; 4],
            num_elem: [1; 4],
        }
    }
}

impl Data4d {
    /// `d4d_element_count`.
    pub fn element_count(&self) -> u64 {
        self.num_elem.iter().map(|&n| n as u64).product()
    }
}

impl Field for Data4d {
    const SIZE: usize = 20;
    #[inline(always)]
    fn text_ref(&self) -> crate::wire::field::TextRef<'_> {
        crate::wire::field::TextRef::Data4d(self)
    }
    #[inline]
    fn read(b: &[u8]) -> Self {
        // Same geometry as TENSOR4D with an i32 base in place of ADDR4.
        let t = Tensor4::read(b);
        Data4d {
            base: i32::read(b),
            step_elem: t.step_elem,
            num_elem: t.num_elem,
        }
    }
    #[inline]
    fn write(&self, b: &mut [u8]) {
        Tensor4 {
            start_addr: Addr4(self.base as u32),
            step_elem: self.step_elem,
            num_elem: self.num_elem,
        }
        .write(b)
    }
    fn to_text(&self, _: Gen) -> String {
        format!(
            "{}:{}",
            self.base,
            pairs_text(&self.step_elem, &self.num_elem)
        )
    }
    fn parse_text(s: &str, _: Gen) -> Result<Self, String> {
        let (a, p) = s
            .split_once(':')
            .ok_or_else(|| format!("expected {}, got `{s}`", Self::expected()))?;
        let base = i32::parse_text(a, Gen::default())?;
        let (st, nm) = parse_pairs(p, 4)?;
        let mut d = Data4d {
            base,
            ..Default::default()
        };
        d.step_elem.copy_from_slice(&st);
        d.num_elem.copy_from_slice(&nm);
        Ok(d)
    }
    fn parts(&self, _: Gen) -> Vec<(String, usize, usize, String)> {
        let mut v = vec![(".base".to_string(), 0, 4, self.base.to_string())];
        for i in 0..4 {
            v.push((
                format!(".step_elem[{i}]"),
                4 + 2 * i,
                2,
                self.step_elem[i].to_string(),
            ));
        }
        for i in 0..4 {
            v.push((
                format!(".num_elem[{i}]"),
                12 + 2 * i,
                2,
                self.num_elem[i].to_string(),
            ));
        }
        v
    }
    fn expected() -> String {
        "`BASE:[[step,num],...]` with up to 4 pairs, innermost first".into()
    }
}

/// `DTYPE_PAIR` (1 byte): `dtype_lo` (input) in the low nibble, `dtype_hi` (output) in the
/// high nibble (isa-facts §4.3). Text: `IN->OUT`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, Debug)]
pub struct DtypePair(pub u8);

impl DtypePair {
    /// Builds a pair; codes above 0xF cannot be represented and are truncated to 4 bits.
    pub const fn new(lo_in: Dtype, hi_out: Dtype) -> DtypePair {
        DtypePair((lo_in.0 & 0xF) | (hi_out.0 << 4))
    }
    /// The input dtype (low nibble).
    pub const fn lo(self) -> Dtype {
        Dtype(self.0 & 0xF)
    }
    /// The output dtype (high nibble).
    pub const fn hi(self) -> Dtype {
        Dtype(self.0 >> 4)
    }
}

impl Field for DtypePair {
    const SIZE: usize = 1;
    #[inline(always)]
    fn text_ref(&self) -> crate::wire::field::TextRef<'_> {
        crate::wire::field::TextRef::DtypePair(*self)
    }
    #[inline]
    fn read(b: &[u8]) -> Self {
        DtypePair(u8::read(b))
    }
    #[inline]
    fn write(&self, b: &mut [u8]) {
        self.0.write(b)
    }
    fn to_text(&self, gen: Gen) -> String {
        format!("{}->{}", self.lo().on(gen), self.hi().on(gen))
    }
    fn parse_text(s: &str, gen: Gen) -> Result<Self, String> {
        let (a, b) = s
            .split_once("->")
            .ok_or_else(|| format!("expected `IN->OUT` dtypes, got `{s}`"))?;
        let lo = Dtype::parse_text(a, gen)?;
        let hi = Dtype::parse_text(b, gen)?;
        if lo.0 > 0xF || hi.0 > 0xF {
            return Err("a DTYPE_PAIR nibble holds only dtype codes 0x0..=0xF".into());
        }
        Ok(DtypePair::new(lo, hi))
    }
    fn parts(&self, gen: Gen) -> Vec<(String, usize, usize, String)> {
        vec![
            (
                ".dtype_lo".into(),
                0,
                1,
                format!("{} (input, low nibble)", self.lo().on(gen)),
            ),
            (
                ".dtype_hi".into(),
                0,
                1,
                format!("{} (output, high nibble)", self.hi().on(gen)),
            ),
        ]
    }
    fn expected() -> String {
        "`IN->OUT` dtype names, e.g. fp32->bfloat16".into()
    }
}

/// A raw 32-bit word that holds an FP32 value (bounds, fills, bases). Text: a decimal float
/// when that round-trips exactly, else the hex bits.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, Debug)]
pub struct F32Bits(pub u32);

impl F32Bits {
    /// The value as f32.
    pub fn value(self) -> f32 {
        f32::from_bits(self.0)
    }
}

/// Formats FP32 bits as a float literal when it round-trips, else `0x…` bits.
pub fn f32_text(bits: u32) -> String {
    let v = f32::from_bits(bits);
    if v.is_nan() {
        return format!("{bits:#010x}");
    }
    let s = format!("{v:?}");
    match s.parse::<f32>() {
        Ok(p) if p.to_bits() == bits => s,
        _ => format!("{bits:#010x}"),
    }
}

/// Parses a float literal (`1.5`, `-3.4028235e38`, `inf`, `-inf`, `nan`) or `0x` bits.
pub fn parse_f32_bits(s: &str) -> Option<u32> {
    parse_f32_literal(s).ok()
}

/// [`parse_f32_bits`] with the reason when it fails. A finite literal beyond the fp32 range
/// (`1e39`, `3.4028236e38`) is refused rather than rounded to a silent infinity: infinity is
/// written `inf`.
pub fn parse_f32_literal(s: &str) -> Result<u32, String> {
    let t = s.trim();
    let l = t.to_ascii_lowercase();
    if l.starts_with("0x") || l.starts_with("-0x") {
        return parse_int(&l)
            .filter(|v| (0..=u32::MAX as i128).contains(v))
            .map(|v| v as u32)
            .ok_or_else(|| format!("`{t}` is not 32 bits of hex"));
    }
    match l.as_str() {
        "nan" => return Ok(0x7FC0_0000),
        "inf" | "+inf" => return Ok(f32::INFINITY.to_bits()),
        "-inf" => return Ok(f32::NEG_INFINITY.to_bits()),
        _ => {}
    }
    let v = l
        .trim_end_matches('f')
        .parse::<f32>()
        .map_err(|_| format!("`{t}` is not an fp32 value"))?;
    if v.is_infinite() && !l.contains("inf") {
        return Err(format!(
            "`{t}` is beyond the fp32 range (write `inf` for infinity)"
        ));
    }
    Ok(v.to_bits())
}

impl Field for F32Bits {
    const SIZE: usize = 4;
    #[inline(always)]
    fn text_ref(&self) -> crate::wire::field::TextRef<'_> {
        crate::wire::field::TextRef::F32(*self)
    }
    #[inline]
    fn read(b: &[u8]) -> Self {
        F32Bits(u32::read(b))
    }
    #[inline]
    fn write(&self, b: &mut [u8]) {
        self.0.write(b)
    }
    fn to_text(&self, _: Gen) -> String {
        f32_text(self.0)
    }
    fn parse_text(s: &str, _: Gen) -> Result<Self, String> {
        parse_f32_literal(s).map(F32Bits)
    }
    fn expected() -> String {
        "an fp32 value (`1.5`, `-inf`) or `0x` bits".into()
    }
}

/// `IMM_VAL_INST_FIELD` (4 bytes): a union read by the instruction's `imm*_src`: an FP32
/// (arith), a 32/16/8-bit integer (bitvec), a PARTITION_OFFSET pointer, or a register
/// number (isa-facts §7). Kept as raw bits; text is `0x` bits, a float literal or integer.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, Debug)]
pub struct ImmVal(pub u32);

impl Field for ImmVal {
    const SIZE: usize = 4;
    #[inline(always)]
    fn text_ref(&self) -> crate::wire::field::TextRef<'_> {
        crate::wire::field::TextRef::Imm(*self)
    }
    #[inline]
    fn read(b: &[u8]) -> Self {
        ImmVal(u32::read(b))
    }
    #[inline]
    fn write(&self, b: &mut [u8]) {
        self.0.write(b)
    }
    fn to_text(&self, _: Gen) -> String {
        format!("{:#x}", self.0)
    }
    fn parse_text(s: &str, g: Gen) -> Result<Self, String> {
        let t = s.trim().to_ascii_lowercase();
        let floaty = t.contains('.')
            || t.contains("inf")
            || t.contains("nan")
            || (t.contains('e') && !t.contains("0x"));
        if floaty {
            return parse_f32_literal(s).map(ImmVal);
        }
        u32::parse_text(s, g).map(ImmVal)
    }
    fn parts(&self, _: Gen) -> Vec<(String, usize, usize, String)> {
        vec![(
            String::new(),
            0,
            4,
            format!(
                "{:#010x} (as fp32: {}, as i32: {})",
                self.0,
                f32_text(self.0),
                self.0 as i32
            ),
        )]
    }
    fn expected() -> String {
        "an immediate: `0x` bits, an integer or an fp32 literal with a `.`".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // seed 001 "The 16→20 spill": step @ +4+2i, num @ +(4+2N)+2i.
    #[test]
    fn seed001_descriptor_offsets() {
        assert_eq!(
            (Tensor1::SIZE, Tensor2::SIZE, Tensor3::SIZE, Tensor4::SIZE),
            (8, 12, 16, 20)
        );
        assert_eq!([Tensor3::num_offset(0), Tensor4::num_offset(0)], [0xA, 0xC]);
        assert_eq!(Tensor4::step_offset(3), 0xA);
        assert_eq!(Tensor4::num_offset(3), 0x12);
        let mut b = [0u8; 20];
        let t = Tensor4 {
            start_addr: Addr4(0x0004_0400),
            step_elem: [1, -2, 3, 1],
            num_elem: [4, 5, 6, 7],
        };
        t.write(&mut b);
        assert_eq!(&b[0..4], &[0x00, 0x04, 0x04, 0x00]);
        assert_eq!(&b[0xA..0xC], &1i16.to_le_bytes());
        assert_eq!(&b[0xC..0xE], &4u16.to_le_bytes());
        assert_eq!(&b[0x12..0x14], &7u16.to_le_bytes());
        assert_eq!(Tensor4::read(&b), t);
    }

    #[test]
    fn addr4_forms_and_text() {
        let g = Gen::Cayman;
        let a = Addr4::at(g, Space::Sbuf, 3, 0x400).unwrap();
        assert_eq!(a.to_text(g), "sbuf[p3]+0x400");
        assert_eq!(Addr4::parse_text("SBUF[p3]+0x400", g), Ok(a));
        assert_eq!(Addr4::register(5).to_text(g), "reg[5]");
        assert_eq!(Addr4(0x2000_0000).form(), AddrForm::Indirect);
        assert_eq!(Addr4(0x4000_0000).form(), AddrForm::ShapeFromRegister);
        assert_eq!(Addr4(0x6000_0000).form(), AddrForm::Malformed);
        assert_eq!(Addr4(0x8000_0100).form(), AddrForm::Malformed);
        assert!(Addr4::parse_text("sbuf[p128]+0", g).is_err());
        assert_eq!(
            Addr4::parse_text("psum[p1]+0x10", g),
            Ok(Addr4(0x200_0000 + 0x8000 + 0x10))
        );
    }

    #[test]
    fn pairs_fill_and_limits() {
        let t = Tensor4::parse_text("sbuf[p0]+0:[[1,64],[-1,2]]", Gen::Sunda).unwrap();
        assert_eq!(t.step_elem, [1, -1, 1, 1]);
        assert_eq!(t.num_elem, [64, 2, 1, 1]);
        assert!(Tensor2::parse_text("0x0:[[1,1],[1,1],[1,1]]", Gen::Sunda).is_err());
        assert!(Tensor2::parse_text("0x0:[[40000,1]]", Gen::Sunda).is_err());
    }

    #[test]
    fn f32_text_round_trips() {
        for bits in [
            0u32,
            0x8000_0000,
            0x3F80_0000,
            0xFF7F_FFFF,
            0x7F80_0000,
            0x7FC0_0001,
            1,
        ] {
            assert_eq!(parse_f32_bits(&f32_text(bits)), Some(bits));
        }
        assert_eq!(f32_text(0xFF7F_FFFF), "-3.4028235e38");
    }
}
