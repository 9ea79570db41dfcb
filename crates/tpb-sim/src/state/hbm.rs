//! Device memory (HBM): one flat byte space per core with the same initialised shadow as
//! SBUF (decisions §6.4, §5.2; isa-facts-pe-act-dma §3.2). Its size is a machine setting
//! ([`Config::hbm_bytes`](crate::Config::hbm_bytes)); pages are allocated when first
//! written, so a large HBM costs only what a program touches. Unwritten bytes read as zero
//! and are uninitialised.

use super::Shadow;
use std::collections::BTreeMap;

/// Bytes per allocated page.
const PAGE: u64 = 1 << 16;
/// Shadow words per page (one bit per byte).
const PAGE_WORDS: usize = (PAGE / 64) as usize;

/// The default HBM size: 1 GiB (decisions §6.4).
pub const DEFAULT_HBM_BYTES: u64 = 1 << 30;
/// The largest HBM a machine may be given: 64 GiB, beyond any one core's share of a
/// device's HBM (Trn3's 144 GiB is shared by its cores, isa-facts-pe-act-dma §4.2). A
/// simulator limit: pages are only allocated when written.
pub const MAX_HBM_BYTES: u64 = 1 << 36;

#[derive(Clone, PartialEq, Eq)]
struct Page {
    data: Box<[u8]>,
    init: Box<[u64]>,
}

impl Page {
    fn new() -> Page {
        Page {
            data: vec![0; PAGE as usize].into_boxed_slice(),
            init: vec![0; PAGE_WORDS].into_boxed_slice(),
        }
    }
}

/// An address range outside HBM.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct OutsideHbm {
    /// First byte.
    pub(crate) start: u64,
    /// End (exclusive; saturated).
    pub(crate) end: u64,
    /// The HBM size.
    pub(crate) size: u64,
}

/// The HBM of one core.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Hbm {
    size: u64,
    pages: BTreeMap<u64, Page>,
}

/// `(page, offset in page, bytes in this page)` for each page `start..start + len` covers.
fn chunks(start: u64, len: u64) -> impl Iterator<Item = (u64, usize, usize)> {
    let end = start + len;
    let mut at = start;
    std::iter::from_fn(move || {
        if at >= end {
            return None;
        }
        let page = at / PAGE;
        let off = at % PAGE;
        let n = (PAGE - off).min(end - at);
        at += n;
        Some((page, off as usize, n as usize))
    })
}

impl Hbm {
    /// An empty HBM of `size` bytes (at most [`MAX_HBM_BYTES`]; larger sizes are clamped by
    /// the caller's configuration check).
    pub(crate) fn new(size: u64) -> Hbm {
        Hbm {
            size: size.min(MAX_HBM_BYTES),
            pages: BTreeMap::new(),
        }
    }

    /// The size in bytes.
    pub(crate) fn size(&self) -> u64 {
        self.size
    }

    /// Bytes of pages allocated so far.
    pub(crate) fn allocated(&self) -> u64 {
        self.pages.len() as u64 * PAGE
    }

    /// Checks that `start..start + len` lies inside HBM.
    pub(crate) fn check(&self, start: u64, len: u64) -> Result<(), OutsideHbm> {
        match start.checked_add(len) {
            Some(end) if end <= self.size => Ok(()),
            end => Err(OutsideHbm {
                start,
                end: end.unwrap_or(u64::MAX),
                size: self.size,
            }),
        }
    }

    /// Reads `out.len()` bytes from `start` (checked by the caller): unwritten bytes are 0.
    pub(crate) fn read(&self, start: u64, out: &mut [u8]) {
        let mut o = 0;
        for (page, off, n) in chunks(start, out.len() as u64) {
            match self.pages.get(&page) {
                Some(p) => out[o..o + n].copy_from_slice(&p.data[off..off + n]),
                None => out[o..o + n].fill(0),
            }
            o += n;
        }
    }

    /// Writes `bytes` at `start` (checked by the caller) and marks them initialised.
    pub(crate) fn write(&mut self, start: u64, bytes: &[u8]) {
        let mut o = 0;
        for (page, off, n) in chunks(start, bytes.len() as u64) {
            let p = self.pages.entry(page).or_insert_with(Page::new);
            p.data[off..off + n].copy_from_slice(&bytes[o..o + n]);
            Shadow::set_words(&mut p.init, off, n);
            o += n;
        }
    }

    /// Marks `start..start + len` (checked by the caller) initialised, keeping the bytes.
    pub(crate) fn mark(&mut self, start: u64, len: u64) {
        for (page, off, n) in chunks(start, len) {
            let p = self.pages.entry(page).or_insert_with(Page::new);
            Shadow::set_words(&mut p.init, off, n);
        }
    }

    /// How many bytes of `start..start + len` (checked by the caller) were never written.
    pub(crate) fn count_unset(&self, start: u64, len: u64) -> u64 {
        chunks(start, len)
            .map(|(page, off, n)| match self.pages.get(&page) {
                Some(p) => Shadow::count_unset_words(&p.init, off, n),
                None => n as u64,
            })
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // decisions §6.4 / §5.2: HBM starts zero and uninitialised; writes across a page
    // boundary read back and become initialised; the size bounds every access.
    #[test]
    fn hbm_reads_writes_and_shadow() {
        let mut h = Hbm::new(4 * PAGE);
        assert_eq!(h.count_unset(0, 4 * PAGE), 4 * PAGE);
        let data: Vec<u8> = (0..100).collect();
        let at = PAGE - 40;
        h.check(at, 100).unwrap();
        h.write(at, &data);
        let mut back = vec![0xFF; 100];
        h.read(at, &mut back);
        assert_eq!(back, data);
        assert_eq!(h.count_unset(at - 10, 120), 20);
        assert_eq!(h.allocated(), 2 * PAGE);
        let mut z = [0xFFu8; 8];
        h.read(3 * PAGE, &mut z);
        assert_eq!(z, [0; 8]);
        assert!(h.check(4 * PAGE - 1, 1).is_ok());
        assert_eq!(
            h.check(4 * PAGE - 1, 2),
            Err(OutsideHbm {
                start: 4 * PAGE - 1,
                end: 4 * PAGE + 1,
                size: 4 * PAGE
            })
        );
        assert!(h.check(u64::MAX, 2).is_err());
    }

    // The word-level shadow of HBM pages against a bool-per-byte model: writes and counts
    // starting and ending inside, on and across shadow words and pages.
    #[test]
    fn hbm_shadow_matches_a_byte_model() {
        let cuts = [
            0u64,
            1,
            63,
            64,
            65,
            200,
            PAGE - 65,
            PAGE - 1,
            PAGE,
            PAGE + 1,
            PAGE + 130,
        ];
        for &a in &cuts {
            for &b in cuts.iter().filter(|&&b| b > a) {
                let mut h = Hbm::new(3 * PAGE);
                let mut model = vec![false; 3 * PAGE as usize];
                h.write(a, &vec![7; (b - a) as usize]);
                model[a as usize..b as usize]
                    .iter_mut()
                    .for_each(|x| *x = true);
                for &c in &cuts {
                    for &d in cuts.iter().filter(|&&d| d >= c) {
                        let want = model[c as usize..d as usize]
                            .iter()
                            .filter(|&&x| !x)
                            .count();
                        assert_eq!(h.count_unset(c, d - c), want as u64, "{a}..{b}, {c}..{d}");
                    }
                }
            }
        }
    }
}
