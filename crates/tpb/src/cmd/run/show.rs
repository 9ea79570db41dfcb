//! `.show` / `--show`: a small picture of a region's top-left corner, one row per
//! partition, one column per element of that partition.
//!
//! Either the values (rounded to fit a 7-character cell), or with `mark=VALUE` a character
//! grid: `#` where the element's bits equal VALUE's bits in the region's dtype, `.` elsewhere
//! (for the causal mask: `#` where the fill was written).

use super::check::element;
use super::value::compact_text;
use std::fmt::Write as _;
use tpb_sim::numerics::Fp8Config;
use tpb_sim::region::BoundRegion as Bound;

/// Width of one value cell.
const CELL: usize = 7;

/// What to draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Picture {
    /// Partitions (rows) to show at most.
    pub rows: usize,
    /// Elements (columns) per partition to show at most.
    pub cols: usize,
    /// Bits to draw as `#` (others as `.`); `None` draws the values.
    pub mark: Option<u32>,
}

/// The corner of a region [`render`] draws (at most `pic.rows` partitions, or HBM rows, of
/// at most `pic.cols` elements) as a region of its own, and its bytes: only the corner is
/// read, whatever the region's size (issue 29 item 8).
pub fn corner(
    m: &tpb_sim::Machine,
    b: &Bound,
    pic: &Picture,
) -> Result<(Bound, Vec<u8>), tpb_sim::HostError> {
    let t = &b.tensor;
    let rows = u32::try_from(pic.rows)
        .unwrap_or(u32::MAX)
        .min(t.partitions);
    let cols = u64::try_from(pic.cols)
        .unwrap_or(u64::MAX)
        .min(t.elems_per_partition);
    let row_bytes = t.elems_per_partition.saturating_mul(b.elem_size() as u64);
    let mut data = Vec::new();
    for r in 0..rows {
        // HBM has no partitions: its rows lie one after another.
        let row = match t.space {
            tpb_isa::geometry::Space::Hbm => tpb_sim::HostTensor {
                byte_offset: t.byte_offset + u64::from(r) * row_bytes,
                partitions: 1,
                elems_per_partition: cols,
                ..*t
            },
            _ => tpb_sim::HostTensor {
                start_partition: t.start_partition + r,
                partitions: 1,
                elems_per_partition: cols,
                ..*t
            },
        };
        data.extend(m.read_tensor(&row)?);
    }
    let tensor = tpb_sim::HostTensor {
        partitions: rows,
        elems_per_partition: cols,
        ..*t
    };
    let shape = vec![rows as usize, cols as usize];
    Ok((Bound { tensor, shape }, data))
}

/// Renders the corner of `data` (the region's bytes, partition-major). Each line starts with
/// `indent`; the first line is a caption.
pub fn render(b: &Bound, data: &[u8], pic: &Picture, fp8: &Fp8Config, indent: &str) -> String {
    let t = &b.tensor;
    let per = usize::try_from(t.elems_per_partition).unwrap_or(usize::MAX);
    let rows = pic.rows.min(t.partitions as usize);
    let cols = pic.cols.min(per);
    let size = b.elem_size();
    let label_w = format!("p{}", t.start_partition as usize + rows.saturating_sub(1)).len();
    let mut s = String::new();
    let what = match pic.mark {
        Some(m) => format!(
            "'#' = {}, '.' = any other value",
            super::value::element_text(m, t.dtype, fp8)
        ),
        None => "values".into(),
    };
    let _ = writeln!(
        s,
        "{indent}partitions p{}..{}, elements 0..{cols} ({what}):",
        t.start_partition,
        t.start_partition as usize + rows
    );
    for r in 0..rows {
        let _ = write!(
            s,
            "{indent}  {:<label_w$} ",
            format!("p{}", t.start_partition as usize + r)
        );
        for c in 0..cols {
            let bits = element(data, size, r * per + c);
            match pic.mark {
                Some(m) => s.push(if bits == m { '#' } else { '.' }),
                None => {
                    let _ = write!(s, " {:>CELL$}", compact_text(bits, t.dtype, fp8, CELL));
                }
            }
        }
        s.push('\n');
    }
    s
}

/// One channel of `.show flops[…]`: who loaded how many slots, then the 8 slots as hex
/// (and as fp32 for the slots an ImmLdArith loaded).
pub fn flops_line(channel: u32, f: &tpb_sim::Flops) -> String {
    use tpb_sim::FlopKind;
    let who = match f.kind {
        None => "never loaded".to_string(),
        Some(FlopKind::Arith) => format!("{} loaded by TensorScalarImmLdArith", f.loaded),
        Some(FlopKind::Bitvec) => format!("{} loaded by TensorScalarImmLdBitvec", f.loaded),
    };
    let hex: Vec<String> = f.slots.iter().map(|w| format!("{w:08x}")).collect();
    let mut line = format!("           c{channel:<3} {who}: {}", hex.join(" "));
    if f.kind == Some(FlopKind::Arith) {
        let vals: Vec<String> = f.slots[..usize::from(f.loaded).min(f.slots.len())]
            .iter()
            .map(|&w| tpb_isa::wire::descriptor::f32_text(w))
            .collect();
        line += &format!(" (fp32 {})", vals.join(", "));
    }
    line + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;
    use tpb_sim::region::RegionSpec;

    #[test]
    fn marks_and_values() {
        let b = RegionSpec::parse("sbuf[p0..3]:bf16:3x3")
            .unwrap()
            .bind()
            .unwrap();
        // 0.5 on and below the diagonal, -inf above.
        let data: Vec<u8> = (0..9)
            .flat_map(|i: usize| {
                let (r, c) = (i / 3, i % 3);
                let bits: u16 = if r >= c { 0x3F00 } else { 0xFF80 };
                bits.to_le_bytes()
            })
            .collect();
        let fp8 = Fp8Config::default();
        let pic = Picture {
            rows: 8,
            cols: 2,
            mark: Some(0xFF80),
        };
        assert_eq!(
            render(&b, &data, &pic, &fp8, ""),
            "partitions p0..3, elements 0..2 ('#' = -inf, '.' = any other value):\n  \
             p0 .#\n  p1 ..\n  p2 ..\n"
        );
        let pic = Picture {
            rows: 2,
            cols: 3,
            mark: None,
        };
        assert_eq!(
            render(&b, &data, &pic, &fp8, "> "),
            "> partitions p0..2, elements 0..3 (values):\n>   p0      0.5    -inf    -inf\n\
             >   p1      0.5     0.5    -inf\n"
        );
    }
}
