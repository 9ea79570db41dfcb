//! Calls whose views need more than one instruction (issue 29 item 11). An operand's access
//! pattern may need more dims, a larger step or a larger count than the instruction's
//! `TENSOR{N}D` holds (isa-facts §3.2, §3.4); as a compiler would, the call is split along
//! the outermost free dim the operands share — into chunks of at most 65535 indices when a
//! chunk fits, else one index at a time — and the pieces run all or nothing: a fault in any
//! piece leaves the core as it was before the call ([`Core::all_or_nothing`]).

use crate::core::Core;
use crate::error::NkiError;
use crate::tile::Tile;
use tpb_isa::pack::{pack, PackError};
use tpb_isa::Gen;
use tpb_sim::StepReport;

/// One instruction of a call on its views (dst first).
pub(crate) type OnViews<'a> = dyn FnMut(&mut Core, &[Tile]) -> Result<StepReport, NkiError> + 'a;

/// The largest count one descriptor word holds.
const MAX_COUNT: usize = u16::MAX as usize;

/// Whether `tile` fits no `TENSOR{n}D` of its own: a count with no split into count words,
/// more active dims than the descriptor has, or a step or count outside its words. Any other
/// problem (a pending view, a partition range) is the instruction's to report.
pub(crate) fn needs_split(gen: Gen, tile: &Tile, n: usize) -> bool {
    if tile.check().is_err() {
        return false;
    }
    let Ok(ap) = tile.access_pattern() else {
        return true;
    };
    let packed = match n {
        1 => pack::<1>(gen, &ap).map(|_| ()),
        2 => pack::<2>(gen, &ap).map(|_| ()),
        3 => pack::<3>(gen, &ap).map(|_| ()),
        _ => pack::<4>(gen, &ap).map(|_| ()),
    };
    matches!(
        packed,
        Err(PackError::IllegalDimension { .. }
            | PackError::StepRange { .. }
            | PackError::NumRange { .. })
    )
}

/// `views` cut along their outermost free dim with more than one index (they share their
/// free shape): chunks of up to 65535 indices when the first chunk fits, else single indices.
/// `None` when the free shapes differ or no dim can be cut.
fn pieces(gen: Gen, n: usize, views: &[Tile]) -> Option<Vec<Vec<Tile>>> {
    let free = views.first()?.shape.get(1..)?.to_vec();
    if views.iter().any(|v| v.shape.get(1..) != Some(&free[..])) {
        return None;
    }
    let axis = 1 + free.iter().position(|&d| d > 1)?;
    let count = views[0].shape[axis];
    let cut = |start: usize, len: usize| -> Vec<Tile> {
        views.iter().map(|v| v.along(axis, start, len)).collect()
    };
    let chunk = count.min(MAX_COUNT);
    let chunk = if chunk < count && cut(0, chunk).iter().all(|v| !needs_split(gen, v, n)) {
        chunk
    } else {
        1
    };
    Some(
        (0..count)
            .step_by(chunk)
            .map(|start| cut(start, chunk.min(count - start)))
            .collect(),
    )
}

impl Core {
    /// Runs `call` on `views` (the call's tiles with a free pattern: dst first) as one
    /// instruction when each fits a `TENSOR{n}D`, else on pieces of them (module docs), all
    /// or nothing. Returns the last piece's report.
    pub(crate) fn elementwise(
        &mut self,
        n: usize,
        views: &[Tile],
        call: &mut OnViews<'_>,
    ) -> Result<StepReport, NkiError> {
        let gen = self.gen();
        if !views.iter().any(|v| needs_split(gen, v, n)) {
            return call(self, views);
        }
        let Some(parts) = pieces(gen, n, views) else {
            // Operands of different shapes: the instruction names what does not fit.
            return call(self, views);
        };
        self.all_or_nothing(|core| {
            let mut last = None;
            for p in &parts {
                last = Some(core.elementwise(n, p, call)?);
            }
            last.ok_or_else(|| NkiError::Shape {
                operand: "dst",
                detail: "nothing to run".into(),
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::{Core, Index, NkiEngine, NkiError, Tile};
    use tpb_isa::geometry::Space;
    use tpb_isa::{AluOp, Dtype, Gen};
    use tpb_sim::Config;

    // int16 elements keep the tiles inside one partition's SBUF (224 KiB on cayman).
    fn ints(b: &[u8]) -> Vec<i16> {
        b.chunks_exact(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]))
            .collect()
    }

    fn bytes(v: &[i16]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    fn f32s(b: &[u8]) -> Vec<f32> {
        b.chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }

    fn range(start: i64, stop: i64, step: i64) -> Index {
        Index::Slice {
            start: Some(start),
            stop: Some(stop),
            step: Some(step),
        }
    }

    fn full() -> Index {
        Index::Slice {
            start: None,
            stop: None,
            step: None,
        }
    }

    /// A core with the uninitialised-read sanitizer on.
    fn strict() -> Core {
        let mut c = Config::new(Gen::Cayman);
        c.strict = true;
        Core::with_config(c)
    }

    const COLS: usize = 33000;

    /// `t[:, :, 0:8]` of a (2, 3, 33000) tile is the view: its row step 33000 does not fit
    /// the signed 16-bit step word (isa-facts §3.2).
    fn wide(core: &mut Core) -> (Tile, Vec<i16>) {
        let t = core
            .ndarray(&[2, 3, COLS], Dtype::INT16, Space::Sbuf)
            .unwrap();
        let vals: Vec<i16> = (0..2 * 3 * COLS).map(|k| (k % 1000) as i16).collect();
        core.write(&t, &bytes(&vals)).unwrap();
        (t, vals)
    }

    #[test]
    fn a_step_too_large_splits_along_the_outer_dim() {
        let mut core = Core::new(Gen::Cayman);
        let (t, vals) = wide(&mut core);
        let src = t.index(&[full(), full(), range(0, 8, 1)]).unwrap();
        let dst = core.ndarray(&[2, 3, 8], Dtype::INT16, Space::Sbuf).unwrap();
        core.tensor_copy(&dst, &src, NkiEngine::Unknown).unwrap();
        assert_eq!(core.program().len(), 3, "one Copy per row");
        let want: Vec<i16> = (0..2)
            .flat_map(|p| (0..3).flat_map(move |r| (0..8).map(move |c| (p, r, c))))
            .map(|(p, r, c)| vals[(p * 3 + r) * COLS + c])
            .collect();
        assert_eq!(ints(&core.read(&dst).unwrap()), want);
        // The same on the other calls that split.
        let out = core.ndarray(&[2, 3, 8], Dtype::INT16, Space::Sbuf).unwrap();
        core.tensor_tensor(&out, &src, &src, AluOp::ADD, NkiEngine::Vector)
            .unwrap();
        let twice: Vec<i16> = want.iter().map(|v| v + v).collect();
        assert_eq!(ints(&core.read(&out).unwrap()), twice);
        core.memset(&src, 7.0, NkiEngine::Unknown).unwrap();
        assert_eq!(ints(&core.read(&src).unwrap()), vec![7; 48]);
    }

    // isa-facts §3.4: at most 4 active free dims in a TENSOR4D; five strided dims split.
    #[test]
    fn too_many_dims_split() {
        let mut core = Core::new(Gen::Cayman);
        let t = core
            .ndarray(&[1, 4, 4, 4, 4, 4], Dtype::INT16, Space::Sbuf)
            .unwrap();
        core.memset(&t, 0.0, NkiEngine::Unknown).unwrap();
        let e = range(0, 4, 2);
        let v = t.index(&[full(), e, e, e, e, e]).unwrap();
        let n = core.program().len();
        core.memset(&v, 1.0, NkiEngine::Unknown).unwrap();
        assert_eq!(core.program().len(), n + 2);
        let got = ints(&core.read(&t).unwrap());
        assert_eq!(got.iter().filter(|&&x| x == 1).count(), 32);
        assert_eq!((got[0], got[1], got[2]), (1, 0, 1));
    }

    // A fault in a later piece (an uninitialised read under the strict sanitizer) leaves the
    // program and memory as they were: all or nothing.
    #[test]
    fn a_fault_in_any_piece_changes_nothing() {
        let mut core = strict();
        let t = core
            .ndarray(&[2, 3, COLS], Dtype::INT16, Space::Sbuf)
            .unwrap();
        // Rows 0 and 1 written, row 2 never.
        let rows01 = t.index(&[full(), range(0, 2, 1)]).unwrap();
        core.write(&rows01, &bytes(&vec![1; 2 * 2 * COLS])).unwrap();
        let src = t.index(&[full(), full(), range(0, 8, 1)]).unwrap();
        let dst = core.ndarray(&[2, 3, 8], Dtype::INT16, Space::Sbuf).unwrap();
        core.write(&dst, &bytes(&[5; 48])).unwrap();
        let before = (core.program().len(), core.read(&dst).unwrap());
        let e = core
            .tensor_copy(&dst, &src, NkiEngine::Unknown)
            .unwrap_err();
        assert!(matches!(e, NkiError::Fault(_)), "{e}");
        assert_eq!((core.program().len(), core.read(&dst).unwrap()), before);
    }

    // A DMA too large for one request (a prime row of 65537 elements: no fold, no count word)
    // is cut into requests per partition and runs of 32768; a fault in a later request
    // (row 1 never written) leaves everything as it was.
    #[test]
    fn a_split_dma_runs_all_or_nothing() {
        let mut core = strict();
        let src = core.ndarray(&[2, 65537], Dtype::INT8, Space::Sbuf).unwrap();
        let dst = core.ndarray(&[2, 65537], Dtype::INT8, Space::Sbuf).unwrap();
        let vals: Vec<u8> = (0..2 * 65537).map(|k| (k % 200) as u8).collect();
        core.write(&dst, &vec![9; 2 * 65537]).unwrap();
        let row0 = src.index(&[Index::At(0)]).unwrap();
        core.write(&row0, &vals[..65537]).unwrap();
        let e = core.dma_copy(&dst, &src, None, None).unwrap_err();
        assert!(matches!(e, NkiError::Fault(_)), "{e}");
        assert_eq!(core.program().len(), 0);
        assert_eq!(core.read(&dst).unwrap(), vec![9; 2 * 65537]);
        let row1 = src.index(&[Index::At(1)]).unwrap();
        core.write(&row1, &vals[65537..]).unwrap();
        core.dma_copy(&dst, &src, None, None).unwrap();
        assert_eq!(core.program().len(), 6, "two rows of three runs");
        assert_eq!(core.read(&dst).unwrap(), vals);
    }

    // issue 29 item 11: a sum over 40000 or 70000 columns is one TensorReduce (70000 =
    // 4 · 17500 in two reduced slots, op_dim XY), folded in element order.
    #[test]
    fn long_reductions_fit_one_instruction() {
        for cols in [40000usize, 70000] {
            let mut core = Core::new(Gen::Cayman);
            let t = core.ndarray(&[2, cols], Dtype::INT16, Space::Sbuf).unwrap();
            let vals: Vec<i16> = (0..2 * cols).map(|k| (k % 7) as i16).collect();
            core.write(&t, &bytes(&vals)).unwrap();
            let out = core.ndarray(&[2, 1], Dtype::FP32, Space::Sbuf).unwrap();
            core.tensor_reduce(&out, AluOp::ADD, &t, &[1], false, false)
                .unwrap();
            assert_eq!(core.program().len(), 1);
            let want: Vec<f32> = (0..2)
                .map(|p| {
                    vals[p * cols..(p + 1) * cols]
                        .iter()
                        .fold(0.0f32, |a, &b| a + f32::from(b))
                })
                .collect();
            assert_eq!(f32s(&core.read(&out).unwrap()), want);
        }
        // A prime count past one count word has no split: the limit, in the kernel's terms.
        let mut core = Core::new(Gen::Cayman);
        let t = core
            .ndarray(&[1, 65537], Dtype::INT16, Space::Sbuf)
            .unwrap();
        let out = core.ndarray(&[1, 1], Dtype::FP32, Space::Sbuf).unwrap();
        let e = core
            .tensor_reduce(&out, AluOp::ADD, &t, &[1], false, false)
            .unwrap_err();
        assert!(
            e.to_string().contains("reduce a smaller part per call"),
            "{e}"
        );
    }

    // A strided view reduces through its own pattern (no copy): sums over the rows of a
    // (2, 4, 6) tile seen as (2, 6, 4).
    #[test]
    fn strided_views_reduce_through_their_pattern() {
        let mut core = Core::new(Gen::Cayman);
        let t = core.ndarray(&[2, 4, 6], Dtype::INT16, Space::Sbuf).unwrap();
        let vals: Vec<i16> = (0..48).collect();
        core.write(&t, &bytes(&vals)).unwrap();
        let view = t.permute(&[2, 1]).unwrap();
        let out = core.ndarray(&[2, 6], Dtype::FP32, Space::Sbuf).unwrap();
        core.tensor_reduce(&out, AluOp::ADD, &view, &[2], false, false)
            .unwrap();
        let want: Vec<f32> = (0..2)
            .flat_map(|p| (0..6).map(move |c| (0..4).map(|r| (p * 24 + r * 6 + c) as f32).sum()))
            .collect();
        assert_eq!(f32s(&core.read(&out).unwrap()), want);
        assert_eq!(core.program().len(), 1);
    }
}
