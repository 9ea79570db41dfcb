//! `nki.isa.bn_stats` and `nki.isa.bn_aggr`, the BatchNorm statistics calls (nki-api §3,
//! "bn_stats" / "bn_aggr"). NKI publishes what they compute — per partition, `bn_stats`
//! gives (count, mean, variance·count) of the even-indexed elements, then of the odd-indexed
//! ones; `bn_aggr` folds such triples into (mean, variance) — but no ISA fact sheet gives
//! the BatchNormStats instructions' encoding or summation order. tpb lowers each call, as a
//! compiler could, to Vector instructions it models (strided reductions, TensorScalar,
//! TensorTensor), computed in fp32 from the definition, and labels the instructions
//! approximate (assumption `bn-stats-lowering`).

use crate::core::Core;
use crate::error::NkiError;
use crate::tile::{Index, Tile};
use crate::{NkiEngine, Operand};
use tpb_isa::geometry::Space;
use tpb_isa::{AluOp, Dtype};
use tpb_sim::{Fault, FaultCause, StepReport, Warning, WarningKind};

/// `nl.tile_size.bn_stats_fmax`: the largest free size `bn_stats` takes (nki-api §3).
pub const BN_STATS_FMAX: u64 = 512;

/// Values per partition `bn_stats` writes: a (count, mean, variance·count) triple for the
/// even-indexed elements, then one for the odd-indexed ones.
const STATS: u64 = 6;
/// Values per partition `bn_aggr` writes: (mean, variance).
const AGGR: u64 = 2;

/// Why the composed results are approximate (the profile's and the report's message).
const APPROXIMATE: &str = "bn_stats / bn_aggr: tpb computes the published definition in fp32 \
     with its own instruction sequence (assumption bn-stats-lowering); the hardware's \
     BatchNormStats summation order is not public: approximate";

fn shape(operand: &'static str, detail: String) -> NkiError {
    NkiError::Shape { operand, detail }
}

/// `t` as a `[P, n]` view with one free dim (a contiguous tile of any rank reshapes).
fn flat(t: &Tile, operand: &'static str) -> Result<Tile, NkiError> {
    if t.space == Space::Hbm {
        return Err(shape(
            operand,
            format!("{t} is in HBM: the Vector engine reads and writes SBUF or PSUM"),
        ));
    }
    if t.shape.len() == 2 {
        return Ok(t.clone());
    }
    t.reshape(&[i64::from(t.partitions()), t.free_elements() as i64])
        .map_err(|e| {
            shape(
                operand,
                format!("{t} has several free dims and is not contiguous ({e}): use a 2-D view"),
            )
        })
}

/// Elements `start, start + step, …` (`count` of them) of a `[P, n]` view.
fn strided(t: &Tile, start: u64, count: u64, step: u64) -> Result<Tile, NkiError> {
    let all = Index::Slice {
        start: None,
        stop: None,
        step: None,
    };
    Ok(t.index(&[
        all,
        Index::Range {
            start: start as i64,
            size: count as i64,
            step: step as i64,
        },
    ])?)
}

/// Partition-first shape `[p, n]`.
fn dims(p: u32, n: u64) -> [usize; 2] {
    [p as usize, n as usize]
}

impl Core {
    /// `nki.isa.bn_stats(dst, data)`: per partition of `data` (at most
    /// [`BN_STATS_FMAX`] elements), `dst = (count, mean, variance·count)` of the
    /// even-indexed elements then of the odd-indexed ones, in fp32 (nki-api §3). Lowered
    /// to Vector instructions (module docs): per half a Memset of the count, a
    /// TensorReduce of the sum, a TensorScalar by `1/count` (the mean, copied to dst), a
    /// TensorScalar subtracting it, a TensorTensor squaring and a TensorReduce of the squares
    /// (the two-pass variance); a half with no element (one element per partition) gets
    /// (0, 0, 0). The instructions are labelled approximate.
    pub fn bn_stats(&mut self, dst: &Tile, data: &Tile) -> Result<Vec<StepReport>, NkiError> {
        let x = flat(data, "data")?;
        let out = flat(dst, "dst")?;
        let (p, n) = (x.partitions(), x.free_elements());
        if n > BN_STATS_FMAX {
            return Err(NkiError::Value {
                argument: "data",
                detail: format!(
                    "{n} elements per partition: bn_stats takes at most bn_stats_fmax = \
                     {BN_STATS_FMAX} (tile the free dim and aggregate with bn_aggr)"
                ),
            });
        }
        if out.partitions() != p || out.free_elements() != STATS {
            return Err(shape(
                "dst",
                format!(
                    "{dst}: bn_stats writes {STATS} values per partition for data's {p} \
                     partitions"
                ),
            ));
        }
        self.approximately(|c| {
            let mut steps = Vec::new();
            for half in 0..2 {
                let count = (n + 1 - half) / 2;
                let slot = strided(&out, 3 * half, 3, 1)?;
                if count == 0 {
                    steps.push(c.memset(&slot, 0.0, NkiEngine::Vector)?);
                    continue;
                }
                let xs = strided(&x, half, count, 2)?;
                let at = |k: u64| strided(&out, 3 * half + k, 1, 1);
                steps.push(c.memset(&at(0)?, count as f64, NkiEngine::Vector)?);
                c.with_scratch(&[dims(p, 1), dims(p, count)], |c, t| {
                    let (mean, dev) = (&t[0], &t[1]);
                    steps.push(c.tensor_reduce(mean, AluOp::ADD, &xs, &[1], false, false)?);
                    let inv = Operand::Imm(1.0 / count as f64);
                    steps.push(c.scale(mean, mean, AluOp::MULT, &inv)?);
                    steps.push(c.tensor_copy(&at(1)?, mean, NkiEngine::Vector)?);
                    let m = Operand::Tile(mean.clone());
                    steps.push(c.scale(dev, &xs, AluOp::SUBTRACT, &m)?);
                    steps.push(c.tensor_tensor(dev, dev, dev, AluOp::MULT, NkiEngine::Vector)?);
                    steps.push(c.tensor_reduce(&at(2)?, AluOp::ADD, dev, &[1], false, false)?);
                    Ok(())
                })?;
            }
            Ok(steps)
        })
    }

    /// `nki.isa.bn_aggr(dst, data)`: `data` holds (count, mean, variance·count) triples per
    /// partition (its free size a multiple of 3, e.g. several `bn_stats` results side by
    /// side); `dst = (mean, variance)` of all the elements they describe, in fp32:
    /// `N = Σ count`, `mean = Σ count·mean / N`, `variance = (Σ variance·count +
    /// Σ count·(mean_i − mean)²) / N` (nki-api §3), lowered to Vector TensorReduce,
    /// TensorTensor, Reciprocal and TensorScalar instructions labelled approximate.
    pub fn bn_aggr(&mut self, dst: &Tile, data: &Tile) -> Result<Vec<StepReport>, NkiError> {
        let x = flat(data, "data")?;
        let out = flat(dst, "dst")?;
        let (p, f) = (x.partitions(), x.free_elements());
        if f == 0 || f % 3 != 0 {
            return Err(NkiError::Value {
                argument: "data",
                detail: format!(
                    "{f} elements per partition: bn_aggr reads (count, mean, variance·count) \
                     triples, so the free size is a positive multiple of 3"
                ),
            });
        }
        if out.partitions() != p || out.free_elements() != AGGR {
            return Err(shape(
                "dst",
                format!(
                    "{dst}: bn_aggr writes {AGGR} values per partition (mean, variance) for \
                     data's {p} partitions"
                ),
            ));
        }
        let k = f / 3;
        let (counts, means, sums) = (
            strided(&x, 0, k, 3)?,
            strided(&x, 1, k, 3)?,
            strided(&x, 2, k, 3)?,
        );
        let (mean_out, var_out) = (strided(&out, 0, 1, 1)?, strided(&out, 1, 1, 1)?);
        let v = NkiEngine::Vector;
        self.approximately(|c| {
            let mut steps = Vec::new();
            let shapes = [dims(p, 1), dims(p, 1), dims(p, 1), dims(p, k), dims(p, k)];
            c.with_scratch(&shapes, |c, t| {
                let (total, inv, mean, w, w2) = (&t[0], &t[1], &t[2], &t[3], &t[4]);
                steps.push(c.tensor_reduce(total, AluOp::ADD, &counts, &[1], false, false)?);
                steps.push(c.reciprocal(inv, total)?);
                let per_n = Operand::Tile(inv.clone());
                steps.push(c.tensor_tensor(w, &counts, &means, AluOp::MULT, v)?);
                steps.push(c.tensor_reduce(mean, AluOp::ADD, w, &[1], false, false)?);
                steps.push(c.scale(mean, mean, AluOp::MULT, &per_n)?);
                steps.push(c.tensor_copy(&mean_out, mean, v)?);
                let m = Operand::Tile(mean.clone());
                steps.push(c.scale(w, &means, AluOp::SUBTRACT, &m)?);
                steps.push(c.tensor_tensor(w2, w, w, AluOp::MULT, v)?);
                steps.push(c.tensor_tensor(w2, w2, &counts, AluOp::MULT, v)?);
                steps.push(c.tensor_tensor(w2, w2, &sums, AluOp::ADD, v)?);
                steps.push(c.tensor_reduce(total, AluOp::ADD, w2, &[1], false, false)?);
                steps.push(c.scale(&var_out, total, AluOp::MULT, &per_n)?);
                Ok(())
            })?;
            Ok(steps)
        })
    }

    /// One TensorScalar `dst = data op operand`.
    fn scale(
        &mut self,
        dst: &Tile,
        data: &Tile,
        op: AluOp,
        operand: &Operand,
    ) -> Result<StepReport, NkiError> {
        self.tensor_scalar(dst, data, op, Some(operand), false, None, None, false)
    }

    /// Runs `f` with fp32 SBUF scratch tiles of `shapes`, freed afterwards (also on error).
    fn with_scratch(
        &mut self,
        shapes: &[[usize; 2]],
        f: impl FnOnce(&mut Core, &[Tile]) -> Result<(), NkiError>,
    ) -> Result<(), NkiError> {
        let mut tiles = Vec::with_capacity(shapes.len());
        let mut r = Ok(());
        for s in shapes {
            match self.ndarray(s, Dtype::FP32, Space::Sbuf) {
                Ok(t) => tiles.push(t),
                Err(e) => {
                    r = Err(e);
                    break;
                }
            }
        }
        if r.is_ok() {
            r = f(self, &tiles);
        }
        for t in &tiles {
            self.free(t);
        }
        r
    }

    /// Emits `f`'s instructions labelled approximate ([`crate::core::Label::approximate`]),
    /// all or nothing; the last report carries the `approximate` warning, and under
    /// `strict_exact` the call faults instead (nothing emitted).
    fn approximately(
        &mut self,
        f: impl FnOnce(&mut Core) -> Result<Vec<StepReport>, NkiError>,
    ) -> Result<Vec<StepReport>, NkiError> {
        let saved = self.call_approximate(Some(APPROXIMATE));
        let strict = self.machine().config().strict_exact;
        let r = self.all_or_nothing(|c| {
            let mut steps = f(c)?;
            if let Some(last) = steps.last_mut() {
                if strict {
                    return Err(NkiError::Fault(Fault {
                        inst: last.inst,
                        cause: FaultCause::Strict(WarningKind::Approximate, APPROXIMATE.into()),
                    }));
                }
                last.warnings.push(Warning {
                    inst: last.inst,
                    kind: WarningKind::Approximate,
                    message: APPROXIMATE.into(),
                });
            }
            Ok(steps)
        });
        self.call_approximate(saved);
        r
    }
}

/// The calls' rows of the lowering table (NKI 0.6.0 argument order).
pub(crate) const LOWERINGS: &[crate::Lowering] = {
    use crate::Lowering;
    &[
        // bn_stats(dst, data, name=None)
        Lowering {
            name: "bn_stats",
            lower: |c, a| c.bn_stats(a.tile(0)?, a.tile(1)?),
        },
        // bn_aggr(dst, data, name=None)
        Lowering {
            name: "bn_aggr",
            lower: |c, a| c.bn_aggr(a.tile(0)?, a.tile(1)?),
        },
    ]
};
