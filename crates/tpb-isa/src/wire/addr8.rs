//! ADDR8, the 8-byte DMA address (isa-facts-pe-act-dma §3.2), and the DMA access pattern
//! `ADDR8 + i32 step_elem[N] + u16 num_elem[N]` (§3.4) that DMA structs lay out in one run.
//!
//! The marker is the high byte (byte 7) masked with 0xFC. An immediate address (byte 7 zero)
//! holds a 56-bit device address. Where SBUF and PSUM sit in that space is **not public**
//! (§3.2, §8 Q20); tpb uses its own documented map, [`DMA_ONCHIP_WINDOW`]: bit 55 set means
//! the low 29 bits are an on-chip address in the ADDR4 map of the generation (partition ×
//! partition stride + offset, isa-facts §2.2); bit 55 clear means an HBM byte address.

use super::field::{le_bytes, parse_int, put_bytes, Field};
use crate::gen::Gen;
use crate::geometry::{Geometry, Space, NUM_REGISTERS, PARTITION_ADDR_MASK};

/// tpb's DMA address map (ASSUMED, isa-facts-pe-act-dma §8 Q20: the hardware's is not
/// public): an immediate ADDR8 with this bit set addresses on-chip memory, its low 29 bits
/// being an ADDR4-style SBUF/PSUM address; without it, an HBM byte address.
pub const DMA_ONCHIP_WINDOW: u64 = 1 << 55;

/// The immediate address bits (the marker byte overlays byte 7, §3.2).
pub const ADDR8_IMM_MASK: u64 = (1 << 56) - 1;

/// The 8-byte DMA address (`ADDR8`, `common.h:603`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, Debug)]
pub struct Addr8(pub u64);

/// How an ADDR8 is read, from its marker (byte 7 & 0xFC, §3.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Addr8Form {
    /// Marker 0x00 with byte 7 zero: an immediate address and shape.
    Immediate,
    /// Marker 0x80 (`ADDR_REG`): the address is in the register pair `(lo, hi)`.
    Register {
        /// `reg_lo`, byte 0.
        lo: u8,
        /// `reg_hi`, byte 1.
        hi: u8,
    },
    /// Marker with `SHAPE_REG` (0x40): the shape comes from a DGE shape register.
    ShapeFromRegister,
    /// Marker with `ADDR_TBL` (0x20): the address comes from a table.
    Table,
    /// Marker `VAR_ID_BIT` (0x10, pseudo instructions only): a NEFF variable id.
    Variable,
    /// Any other marker (or byte 7's low bits set on an immediate).
    Other,
}

/// Where an immediate ADDR8 points (tpb's map, [`DMA_ONCHIP_WINDOW`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DmaLoc {
    /// An HBM byte address.
    Hbm(u64),
    /// On chip: space, partition, byte offset in the partition.
    OnChip(Space, u32, u32),
}

impl Addr8 {
    /// `OFFSET_WIDE`.
    pub const OFFSET_WIDE: u8 = 1 << 2;
    /// `OFFSET_REG`.
    pub const OFFSET_REG: u8 = 1 << 3;
    /// `VAR_ID_BIT` (PSEUDO_ADDR8 only).
    pub const VAR_ID: u8 = 0x10;
    /// `ADDR_TBL`.
    pub const ADDR_TBL: u8 = 1 << 5;
    /// `SHAPE_REG`.
    pub const SHAPE_REG: u8 = 1 << 6;
    /// `ADDR_REG`.
    pub const ADDR_REG: u8 = 1 << 7;
    /// `MASK`.
    pub const MARKER_MASK: u8 = 0xFC;

    /// The marker byte (byte 7 & 0xFC).
    pub const fn marker(self) -> u8 {
        ((self.0 >> 56) as u8) & Self::MARKER_MASK
    }

    /// The form, from the marker.
    pub const fn form(self) -> Addr8Form {
        let top = (self.0 >> 56) as u8;
        let m = top & Self::MARKER_MASK;
        if top == 0 {
            Addr8Form::Immediate
        } else if m & Self::SHAPE_REG != 0 {
            Addr8Form::ShapeFromRegister
        } else if m == Self::ADDR_REG {
            Addr8Form::Register {
                lo: self.0 as u8,
                hi: (self.0 >> 8) as u8,
            }
        } else if m & Self::ADDR_TBL != 0 {
            Addr8Form::Table
        } else if m == Self::VAR_ID {
            Addr8Form::Variable
        } else {
            Addr8Form::Other
        }
    }

    /// `shape_from_register`: the SHAPE_REG bit (ADDR_SHAPE_REG included).
    pub const fn shape_from_register(self) -> bool {
        self.marker() & Self::SHAPE_REG != 0
    }

    /// An HBM byte address (`None` past the 55-bit HBM half of the map).
    pub const fn hbm(addr: u64) -> Option<Addr8> {
        if addr < DMA_ONCHIP_WINDOW {
            Some(Addr8(addr))
        } else {
            None
        }
    }

    /// An on-chip address in tpb's map for `gen` (`None` outside the space's window).
    pub const fn on_chip(gen: Gen, space: Space, partition: u32, offset: u32) -> Option<Addr8> {
        match Geometry::of(gen).address(space, partition, offset) {
            Some(a) => Some(Addr8(DMA_ONCHIP_WINDOW | a as u64)),
            None => None,
        }
    }

    /// A register-pair address (`ADDR_REG`).
    pub const fn register(lo: u8, hi: u8) -> Addr8 {
        Addr8(((Self::ADDR_REG as u64) << 56) | ((hi as u64) << 8) | lo as u64)
    }

    /// Where an immediate address points in tpb's map for `gen`; `None` for other forms and
    /// for an on-chip-window address outside SBUF and PSUM.
    pub const fn locate(self, gen: Gen) -> Option<DmaLoc> {
        if !matches!(self.form(), Addr8Form::Immediate) {
            return None;
        }
        let a = self.0 & ADDR8_IMM_MASK;
        if a & DMA_ONCHIP_WINDOW == 0 {
            return Some(DmaLoc::Hbm(a));
        }
        let low = a & !DMA_ONCHIP_WINDOW;
        if low > PARTITION_ADDR_MASK as u64 {
            return None;
        }
        match Geometry::of(gen).locate(low as u32) {
            Some((s, p, o)) => Some(DmaLoc::OnChip(s, p, o)),
            None => None,
        }
    }

    /// The address displaced by `delta` bytes (`None` if it leaves the immediate form's
    /// half of the map it started in or wraps).
    pub const fn offset_by(self, delta: i64) -> Option<Addr8> {
        let a = self.0 as i128 + delta as i128;
        let window = self.0 & DMA_ONCHIP_WINDOW;
        if a < 0 || a as u64 & !ADDR8_IMM_MASK != 0 || a as u64 & DMA_ONCHIP_WINDOW != window {
            return None;
        }
        Some(Addr8(a as u64))
    }
}

impl Field for Addr8 {
    const SIZE: usize = 8;
    #[inline(always)]
    fn text_ref(&self) -> crate::wire::field::TextRef<'_> {
        crate::wire::field::TextRef::Own
    }
    #[inline]
    fn read(b: &[u8]) -> Self {
        Addr8(u64::from_le_bytes(le_bytes(b)))
    }
    #[inline]
    fn write(&self, b: &mut [u8]) {
        put_bytes(b, &self.0.to_le_bytes());
    }
    fn to_text(&self, gen: Gen) -> String {
        addr8_text(*self, gen)
    }
    fn parse_text(s: &str, gen: Gen) -> Result<Self, String> {
        parse_addr8(s, gen)
    }
    fn parts(&self, gen: Gen) -> Vec<(String, usize, usize, String)> {
        let meaning = match (self.form(), self.locate(gen)) {
            (_, Some(DmaLoc::Hbm(a))) => format!("hbm byte address {a:#x}"),
            (_, Some(DmaLoc::OnChip(sp, p, o))) => format!(
                "{} partition {p}, byte offset {o:#x} (tpb's DMA map: bit 55 = on chip)",
                sp.name()
            ),
            (Addr8Form::Immediate, None) => {
                "on-chip window address outside SBUF and PSUM".to_string()
            }
            (Addr8Form::Register { lo, hi }, _) => {
                format!("address in registers {lo} (low) and {hi} (high)")
            }
            (Addr8Form::ShapeFromRegister, _) => {
                format!("shape from a DGE register, marker {:#04x}", self.marker())
            }
            (Addr8Form::Table, _) => format!("address table, marker {:#04x}", self.marker()),
            (Addr8Form::Variable, _) => "NEFF variable id (pseudo only)".to_string(),
            (Addr8Form::Other, _) => format!("marker {:#04x}", (self.0 >> 56) as u8),
        };
        vec![(String::new(), 0, 8, format!("{:#018x} ({meaning})", self.0))]
    }
    fn expected() -> String {
        "a DMA address: `hbm+0xADDR`, `sbuf[pN]+0xOFF`, `psum[pN]+0xOFF`, `reg[LO,HI]` or a raw \
         64-bit word"
            .into()
    }
}

/// `Addr8::to_text`.
pub fn addr8_text(a: Addr8, gen: Gen) -> String {
    match (a.form(), a.locate(gen)) {
        (_, Some(DmaLoc::Hbm(x))) => format!("hbm+{x:#x}"),
        (_, Some(DmaLoc::OnChip(sp, p, o))) => format!("{}[p{p}]+{o:#x}", sp.name()),
        // `reg[LO,HI]` says byte 7 is exactly ADDR_REG and bytes 2..7 are zero; any other
        // bits (the marker is byte 7 & 0xFC, so 0x81..0x83 are registers too) need the raw
        // word to survive the text.
        (Addr8Form::Register { lo, hi }, _)
            if u32::from(lo) < NUM_REGISTERS
                && u32::from(hi) < NUM_REGISTERS
                && a.0 & !0xFFFF == u64::from(Addr8::ADDR_REG) << 56 =>
        {
            format!("reg[{lo},{hi}]")
        }
        _ => format!("{:#018x}", a.0),
    }
}

fn parse_addr8(s: &str, gen: Gen) -> Result<Addr8, String> {
    let t = s.trim();
    let l = t.to_ascii_lowercase();
    if let Some(rest) = l.strip_prefix("hbm") {
        let off = match rest.trim() {
            "" => 0,
            r => r
                .strip_prefix('+')
                .and_then(parse_int)
                .filter(|v| *v >= 0)
                .ok_or_else(|| format!("expected `hbm+0xADDR` in `{t}`"))?,
        };
        return u64::try_from(off)
            .ok()
            .and_then(Addr8::hbm)
            .ok_or_else(|| format!("hbm address in `{t}` is not below 2^55"));
    }
    if let Some(r) = l.strip_prefix("reg[").and_then(|r| r.strip_suffix(']')) {
        let (lo, hi) = r
            .split_once(',')
            .ok_or_else(|| format!("expected `reg[LO,HI]` in `{t}`"))?;
        let reg = |x: &str| {
            parse_int(x)
                .filter(|v| (0..NUM_REGISTERS as i128).contains(v))
                .map(|v| v as u8)
                .ok_or_else(|| format!("register `{}` is not in 0..{NUM_REGISTERS}", x.trim()))
        };
        return Ok(Addr8::register(reg(lo)?, reg(hi)?));
    }
    for space in [Space::Sbuf, Space::Psum] {
        let Some(rest) = l.strip_prefix(space.name()) else {
            continue;
        };
        let (p, off) = rest
            .strip_prefix("[p")
            .and_then(|r| r.split_once(']'))
            .ok_or_else(|| format!("expected `{}[pN]+0xOFF` in `{t}`", space.name()))?;
        let p = parse_int(p)
            .and_then(|v| u32::try_from(v).ok())
            .ok_or_else(|| format!("bad partition in `{t}`"))?;
        let off = match off.trim() {
            "" => 0,
            o => o
                .strip_prefix('+')
                .and_then(parse_int)
                .and_then(|v| u32::try_from(v).ok())
                .ok_or_else(|| format!("bad offset in `{t}`"))?,
        };
        return Addr8::on_chip(gen, space, p, off)
            .ok_or_else(|| format!("`{t}` is outside {} on {gen}", space.name()));
    }
    parse_int(t)
        .and_then(|v| u64::try_from(v).ok())
        .map(Addr8)
        .ok_or_else(|| format!("`{t}` is not a DMA address; expected {}", Addr8::expected()))
}

/// A DMA access pattern: `ADDR8`, then `N` signed i32 steps, then `N` u16 counts, slot 0
/// innermost (`src`, `src_step_elem[N]`, `src_num_elem[N]` in the headers, §3.4). The steps
/// are **byte** offsets between consecutive elements (ASSUMED, §0.2 #13 / §8 Q19); an
/// element is `elem_size` contiguous bytes (a separate field).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct DmaPattern<const N: usize> {
    /// The address (bytes +0..8).
    pub addr: Addr8,
    /// Byte steps (bytes +8 .. +8+4N).
    pub step_elem: [i32; N],
    /// Counts (bytes +8+4N .. +8+6N).
    pub num_elem: [u16; N],
}

impl<const N: usize> Default for DmaPattern<N> {
    fn default() -> Self {
        DmaPattern {
            addr: Addr8(0),
            step_elem: [0; N],
            num_elem: [0; N],
        }
    }
}

impl<const N: usize> DmaPattern<N> {
    /// Elements the pattern walks (the product of the counts).
    pub fn element_count(&self) -> u64 {
        self.num_elem.iter().map(|&n| u64::from(n)).product()
    }
}

/// `[[step,num],…]` for i32 steps.
pub fn dma_pairs_text(steps: &[i32], nums: &[u16]) -> String {
    let v: Vec<String> = steps
        .iter()
        .zip(nums)
        .map(|(s, n)| format!("[{s},{n}]"))
        .collect();
    format!("[{}]", v.join(","))
}

/// Parses exactly `n` `[step,num]` pairs with i32 steps.
fn parse_dma_pairs(s: &str, n: usize) -> Result<(Vec<i32>, Vec<u16>), String> {
    let t: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    let inner = t
        .strip_prefix('[')
        .and_then(|x| x.strip_suffix(']'))
        .ok_or_else(|| format!("expected `[[step,num],...]`, got `{s}`"))?;
    let (mut steps, mut nums) = (Vec::new(), Vec::new());
    for p in inner.split("],").filter(|p| !p.is_empty()) {
        let p = p.trim_start_matches('[').trim_end_matches(']');
        let (a, b) = p
            .split_once(',')
            .ok_or_else(|| format!("expected `[step,num]`, got `[{p}]`"))?;
        steps.push(
            parse_int(a)
                .and_then(|v| i32::try_from(v).ok())
                .ok_or_else(|| format!("step `{a}` is not a 32-bit signed integer"))?,
        );
        nums.push(
            parse_int(b)
                .and_then(|v| u16::try_from(v).ok())
                .ok_or_else(|| format!("num `{b}` is not in 0..=65535"))?,
        );
    }
    if steps.len() != n {
        return Err(format!(
            "a DMA pattern here has exactly {n} [step,num] pair{} (byte steps, innermost first), got {}",
            if n == 1 { "" } else { "s" },
            steps.len()
        ));
    }
    Ok((steps, nums))
}

impl<const N: usize> Field for DmaPattern<N> {
    const SIZE: usize = 8 + 6 * N;
    #[inline(always)]
    fn text_ref(&self) -> crate::wire::field::TextRef<'_> {
        crate::wire::field::TextRef::Own
    }
    #[inline]
    fn read(b: &[u8]) -> Self {
        let mut p = DmaPattern {
            addr: Addr8::read(b),
            step_elem: [0; N],
            num_elem: [0; N],
        };
        for i in 0..N {
            let s = 8 + 4 * i;
            let n = 8 + 4 * N + 2 * i;
            p.step_elem[i] = i32::from_le_bytes(le_bytes(b.get(s..).unwrap_or_default()));
            p.num_elem[i] = u16::from_le_bytes(le_bytes(b.get(n..).unwrap_or_default()));
        }
        p
    }
    #[inline]
    fn write(&self, b: &mut [u8]) {
        self.addr.write(b);
        for i in 0..N {
            let s = 8 + 4 * i;
            let n = 8 + 4 * N + 2 * i;
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
        format!(
            "{}:{}",
            addr8_text(self.addr, gen),
            dma_pairs_text(&self.step_elem, &self.num_elem)
        )
    }
    fn parse_text(s: &str, gen: Gen) -> Result<Self, String> {
        let (a, p) = s
            .split_once(':')
            .ok_or_else(|| format!("expected {}, got `{s}`", Self::expected()))?;
        let (st, nm) = parse_dma_pairs(p, N)?;
        let mut out = DmaPattern {
            addr: parse_addr8(a, gen)?,
            step_elem: [0; N],
            num_elem: [0; N],
        };
        out.step_elem.copy_from_slice(&st);
        out.num_elem.copy_from_slice(&nm);
        Ok(out)
    }
    fn parts(&self, gen: Gen) -> Vec<(String, usize, usize, String)> {
        let mut v = self.addr.parts(gen);
        for i in 0..N {
            v.push((
                format!(".step_elem[{i}]"),
                8 + 4 * i,
                4,
                format!("{} bytes", self.step_elem[i]),
            ));
        }
        for i in 0..N {
            v.push((
                format!(".num_elem[{i}]"),
                8 + 4 * N + 2 * i,
                2,
                self.num_elem[i].to_string(),
            ));
        }
        v
    }
    fn expected() -> String {
        format!("`ADDR8:[[step,num],…]` with {N} pair(s), byte steps, innermost first")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // isa-facts-pe-act-dma §3.2: the marker is byte 7 & 0xFC; register form reg_lo/reg_hi.
    #[test]
    fn addr8_markers_and_forms() {
        assert_eq!(Addr8(0x1234).form(), Addr8Form::Immediate);
        assert_eq!(
            Addr8::register(3, 4).form(),
            Addr8Form::Register { lo: 3, hi: 4 }
        );
        assert_eq!(Addr8::register(3, 4).0.to_le_bytes()[7], 0x80);
        assert_eq!(Addr8(0x40 << 56).form(), Addr8Form::ShapeFromRegister);
        assert_eq!(Addr8(0xC0 << 56).form(), Addr8Form::ShapeFromRegister);
        assert_eq!(Addr8(0x20 << 56).form(), Addr8Form::Table);
        assert_eq!(Addr8(0x28 << 56).form(), Addr8Form::Table);
        assert_eq!(Addr8(0x10 << 56).form(), Addr8Form::Variable);
        assert_eq!(Addr8(0x01 << 56).form(), Addr8Form::Other);
        assert_eq!(Addr8(0x43 << 56).marker(), 0x40);
    }

    // §8 Q20 (tpb's map): HBM below bit 55, on-chip ADDR4 addresses above it.
    #[test]
    fn addr8_map_and_text_round_trip() {
        let g = Gen::Cayman;
        let s = Addr8::on_chip(g, Space::Sbuf, 3, 0x40).unwrap();
        assert_eq!(s.locate(g), Some(DmaLoc::OnChip(Space::Sbuf, 3, 0x40)));
        assert_eq!(s.0, DMA_ONCHIP_WINDOW | (3 << 18) | 0x40);
        for text in [
            "hbm+0x1000",
            "sbuf[p3]+0x40",
            "psum[p1]+0x10",
            "reg[2,3]",
            "0x4000000000000000",
        ] {
            let a = Addr8::parse_text(text, g).unwrap();
            assert_eq!(a.to_text(g), text);
        }
        assert!(Addr8::parse_text("hbm+0x80000000000000", g).is_err());
        assert!(Addr8::parse_text("sbuf[p128]+0", g).is_err());
        assert!(Addr8::parse_text("reg[64,0]", g).is_err());
        assert_eq!(Addr8(0x100).offset_by(-0x101), None);
        assert_eq!(Addr8(0x100).offset_by(0x10), Some(Addr8(0x110)));
        assert_eq!(s.offset_by(-(DMA_ONCHIP_WINDOW as i64)), None);
    }

    // §3.4: src @16 = ADDR8, src_step_elem[2] @24 (i32), src_num_elem[2] @32 (u16).
    #[test]
    fn dma_pattern_bytes() {
        let mut b = [0u8; 20];
        b[0..8].copy_from_slice(&0x1000u64.to_le_bytes());
        b[8..12].copy_from_slice(&(-4i32).to_le_bytes());
        b[12..16].copy_from_slice(&0x40000i32.to_le_bytes());
        b[16..18].copy_from_slice(&7u16.to_le_bytes());
        b[18..20].copy_from_slice(&128u16.to_le_bytes());
        let p = DmaPattern::<2>::read(&b);
        assert_eq!(p.addr, Addr8(0x1000));
        assert_eq!(p.step_elem, [-4, 0x40000]);
        assert_eq!(p.num_elem, [7, 128]);
        let mut w = [0u8; 20];
        p.write(&mut w);
        assert_eq!(w, b);
        let t = p.to_text(Gen::Cayman);
        assert_eq!(t, "hbm+0x1000:[[-4,7],[262144,128]]");
        assert_eq!(DmaPattern::<2>::parse_text(&t, Gen::Cayman), Ok(p));
        assert!(DmaPattern::<2>::parse_text("hbm+0:[[1,2]]", Gen::Cayman).is_err());
    }
}
