//! `.expect`: bit-exact comparison of a region with expected elements, and the one-line
//! description of the first difference.

use super::value::element_text;
use tpb_isa::Dtype;
use tpb_sim::numerics::Fp8Config;
use tpb_sim::region::BoundRegion as Bound;

/// How a region differs from what was expected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// How many elements differ.
    pub differ: u64,
    /// Flat (C-order) index of the first differing element.
    pub first: u64,
    /// The expected bits there.
    pub want: u32,
    /// The bits found there.
    pub got: u32,
}

/// Element `i` of little-endian `size`-byte elements, as bits.
pub fn element(bytes: &[u8], size: usize, i: usize) -> u32 {
    bytes.get(i * size..(i + 1) * size).map_or(0, |b| {
        b.iter()
            .rev()
            .fold(0u32, |acc, &x| (acc << 8) | u32::from(x))
    })
}

/// Compares element bits (NaNs by their bits: two different NaN encodings differ).
/// `None` when every element is identical.
pub fn compare(size: usize, want: &[u8], got: &[u8]) -> Option<Mismatch> {
    let mut m: Option<Mismatch> = None;
    for (i, (w, g)) in want.chunks(size).zip(got.chunks(size)).enumerate() {
        if w != g {
            match &mut m {
                Some(m) => m.differ += 1,
                None => {
                    m = Some(Mismatch {
                        differ: 1,
                        first: i as u64,
                        want: element(w, size, 0),
                        got: element(g, size, 0),
                    })
                }
            }
        }
    }
    m
}

/// `[2, 7]` — the multi-index of flat index `i` in `shape`.
pub fn multi_index(shape: &[usize], mut i: u64) -> String {
    let mut idx = vec![0u64; shape.len()];
    for (slot, &d) in idx.iter_mut().zip(shape).rev() {
        let d = (d as u64).max(1);
        *slot = i % d;
        i /= d;
    }
    let parts: Vec<String> = idx.iter().map(u64::to_string).collect();
    format!("[{}]", parts.join(", "))
}

/// `37 of 65536 elements differ; first at [0, 5] (partition 0, byte 0x80a): expected 0xff80
/// (-inf), got 0x3f00 (0.5)`.
pub fn describe(b: &Bound, m: &Mismatch, fp8: &Fp8Config) -> String {
    let t = &b.tensor;
    let per = t.elems_per_partition.max(1);
    let size = b.elem_size() as u64;
    let part = u64::from(t.start_partition) + m.first / per;
    let byte = t.byte_offset + (m.first % per) * size;
    let digits = 2 * size as usize;
    let d: Dtype = t.dtype;
    format!(
        "{} of {} element{} differ; first at {} (partition {part}, byte {byte:#x}): expected \
         {:#0w$x} ({}), got {:#0w$x} ({})",
        m.differ,
        b.count(),
        if b.count() == 1 { "" } else { "s" },
        multi_index(&b.shape, m.first),
        m.want,
        element_text(m.want, d, fp8),
        m.got,
        element_text(m.got, d, fp8),
        w = digits + 2,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use tpb_sim::region::RegionSpec;

    #[test]
    fn first_difference_and_count() {
        let want = [0x00, 0x3f, 0x80, 0xff, 0xc0, 0x7f];
        let got = [0x00, 0x3f, 0x00, 0x3f, 0xc1, 0x7f];
        let m = compare(2, &want, &got).unwrap();
        assert_eq!(
            m,
            Mismatch {
                differ: 2,
                first: 1,
                want: 0xff80,
                got: 0x3f00
            }
        );
        assert_eq!(compare(2, &want, &want), None);
        let b = RegionSpec::parse("sbuf[p2..5]+0x800:bf16:3x1")
            .unwrap()
            .bind()
            .unwrap();
        let fp8 = Fp8Config::default();
        assert_eq!(
            describe(&b, &m, &fp8),
            "2 of 3 elements differ; first at [1, 0] (partition 3, byte 0x800): expected \
             0xff80 (-inf), got 0x3f00 (0.5)"
        );
    }

    #[test]
    fn indices() {
        assert_eq!(multi_index(&[128, 512], 517), "[1, 5]");
        assert_eq!(multi_index(&[4], 3), "[3]");
        assert_eq!(multi_index(&[2, 3, 4], 23), "[1, 2, 3]");
    }
}
