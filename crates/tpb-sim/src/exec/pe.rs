//! LoadWeights 0x01 and Matmul 0x02 (isa-facts-pe-act-dma §1.2–§1.9; `docs/reference/pe-act.md`).
//!
//! ```text
//! LoadWeights: W[k][m] = stationary[k][m]      k < num_active_rows (source partitions),
//!                                              m < num_active_cols (elements per partition)
//! Matmul:      for m < cols, j < N:
//!                acc = Σ_k W[k][m] · moving[k][j]          # our order: numerics::pe
//!                psum[m][j] = bit0(flags) ? acc : psum[m][j] + acc
//! ```
//!
//! Operands that are one contiguous run per partition (the usual tiles) are decoded row by
//! row with the slice decoders and the PSUM rows written one vector pass each; any other
//! walk is gathered and written element by element (the plain form, held to the same bits
//! by `dense_operand_path_matches_the_gather`). The sums run in `numerics::pe::matmul`, a
//! register-tiled loop that keeps the documented order (its differential test holds it to
//! the per-element `dot_strided`). The numbers are exact per our order, never the
//! hardware's bits (assumption `pe-summation-order`); each Matmul says so in its report.
//! What the sheet does not give is refused with the missing fact named.

use super::access::bytes_to_raw;
use super::access::{Access, Cursor};
use super::{Cx, Role};
use crate::assumptions::PE_SUMMATION_ORDER;
use crate::numerics::pe::{self, round_tf32};
use crate::numerics::{decode_values, simd, to_f32, Fp8Config};
use crate::report::{CostShape, FaultCause, WarningKind};
use crate::state::{Memory, PeWeights};
use tpb_isa::geometry::Space;
use tpb_isa::wire::{S3Lw, S3d3Mm, Tensor};
use tpb_isa::{Dtype, Gen, PeFp32Mode};

/// The element byte indices of channel `c` of `a`, in walk order (absolute in the space).
pub(super) fn element_indices(mem: &Memory, a: &Access, c: u32) -> Vec<usize> {
    let base = mem.part_base(a.space, a.part0 + c);
    let mut cur = Cursor::new(&a.dims);
    let n = a.count();
    let mut v = Vec::with_capacity(n as usize);
    for _ in 0..n {
        v.push(base + a.byte(cur.run().0) as usize);
        cur.advance(1);
    }
    v
}

/// Reads one element's raw bits (zero-extended).
pub(super) fn read_raw(mem: &Memory, space: Space, i: usize, size: usize) -> u32 {
    let b = &mem.data(space)[i..i + size];
    let mut w = [0u8; 4];
    w[..size].copy_from_slice(b);
    u32::from_le_bytes(w)
}

/// Writes one element's low `size` bytes and marks them initialised.
pub(super) fn write_raw(mem: &mut Memory, space: Space, i: usize, size: usize, bits: u32) {
    let (data, init) = mem.parts_mut(space);
    data[i..i + size].copy_from_slice(&bits.to_le_bytes()[..size]);
    init.set_range(i, size);
}

fn unsupported(what: String) -> FaultCause {
    FaultCause::Unsupported { what }
}

/// Refuses a non-zero control whose meaning the sheet does not give.
fn refuse_nonzero(v: Option<u16>, what: &str, fact: &str) -> Result<(), FaultCause> {
    match v {
        Some(x) if x != 0 => Err(unsupported(format!("{what} = {x:#x}: {fact}"))),
        _ => Ok(()),
    }
}

/// The controls LoadWeights and Matmul share whose non-zero values are not modelled.
fn refuse_unknown_controls(get: impl Fn(&str) -> Option<u16>) -> Result<(), FaultCause> {
    refuse_nonzero(
        get("perf_opt"),
        "perf_opt",
        "the PERF_OPT_MODE values and the DoubleRow data layout are not public \
         (isa-facts-pe-act-dma §1.2, §8 item 2)",
    )?;
    refuse_nonzero(
        get("quant_offset"),
        "quant_offset",
        "the QUANT_OFFSET semantics are not given (isa-facts-pe-act-dma §1.3)",
    )?;
    refuse_nonzero(
        get("flags"),
        "flags",
        "the seed / scalar / transpose / load-order bits have no public semantics beside \
         the v2-v4 controls (isa-facts-pe-act-dma §1.5.3, §1.5.4, §8 items 4-5)",
    )
}

/// Whether a multiplier input is rounded to tf32 (fp32 mode `low`, §8 item 7).
fn tf32_input(dtype: Dtype, mode: PeFp32Mode) -> bool {
    dtype == Dtype::FP32 && mode == PeFp32Mode::LOW
}

/// Converts a multiplier input per the fp32 mode (tf32 for `low`, §8 item 7).
fn pe_value(dtype: Dtype, bits: u32, mode: PeFp32Mode, fp8: &Fp8Config) -> f32 {
    let v = to_f32(dtype, bits, fp8);
    if tf32_input(dtype, mode) {
        round_tf32(v)
    } else {
        v
    }
}

/// Reads `rows` channels of `a` as multiplier inputs into `values` (channel k's walk is
/// row k, `a.count()` long) and, when `raw` is given, their raw bits likewise.
///
/// A walk that is one contiguous run per partition (the usual tile) is decoded row by row
/// with the slice decoders in one dispatched sweep; any other walk is gathered element by
/// element ([`gather_inputs`], the plain form a differential test holds this one to).
#[allow(clippy::too_many_arguments)]
fn read_inputs(
    mem: &Memory,
    a: &Access,
    rows: u32,
    dtype: Dtype,
    mode: PeFp32Mode,
    fp8: &Fp8Config,
    values: &mut [f32],
    raw: Option<&mut [u32]>,
) {
    if !a.dims.is_dense() {
        gather_inputs(mem, a, rows, dtype, mode, fp8, values, raw);
        return;
    }
    let n = a.count() as usize;
    let data = mem.data(a.space);
    let row_bytes = |k: usize| {
        let start = mem.part_base(a.space, a.part0 + k as u32) + a.byte(0) as usize;
        &data[start..start + n * a.size]
    };
    let tf32 = tf32_input(dtype, mode);
    simd::vectorize(
        #[inline(always)]
        || {
            for (k, row) in values.chunks_exact_mut(n).take(rows as usize).enumerate() {
                decode_values(dtype, row_bytes(k), row, fp8);
                if tf32 {
                    row.iter_mut().for_each(|v| *v = round_tf32(*v));
                }
            }
        },
    );
    if let Some(raw) = raw {
        for (k, row) in raw.chunks_exact_mut(n).take(rows as usize).enumerate() {
            bytes_to_raw(a.size, row_bytes(k), row);
        }
    }
}

/// [`read_inputs`] element by element, for any walk (the plain definition).
#[allow(clippy::too_many_arguments)]
fn gather_inputs(
    mem: &Memory,
    a: &Access,
    rows: u32,
    dtype: Dtype,
    mode: PeFp32Mode,
    fp8: &Fp8Config,
    values: &mut [f32],
    mut raw: Option<&mut [u32]>,
) {
    let n = a.count() as usize;
    for k in 0..rows as usize {
        let idx = element_indices(mem, a, k as u32);
        for (j, i) in idx.into_iter().enumerate() {
            let bits = read_raw(mem, a.space, i, a.size);
            values[k * n + j] = pe_value(dtype, bits, mode, fp8);
            if let Some(raw) = raw.as_deref_mut() {
                raw[k * n + j] = bits;
            }
        }
    }
}

fn src_access(cx: &Cx<'_>, t: &Tensor<3>, dtype: Dtype, rows: u32) -> Result<Access, FaultCause> {
    let role = Role {
        write: false,
        psum: false,
    };
    cx.tensor(t, "src_mem_pattern", dtype, role, rows)
}

/// Writes the sums into `cols` channels of the PSUM `dst` (row m = channel m, in walk
/// order): stores them (`overwrite`) or adds each to the old fp32 value with one f32 RNE
/// addition (the accumulate of `numerics::pe`, step 3). A walk that is one contiguous run
/// per partition is one vector pass per row; any other walk goes element by element.
fn write_sums(mem: &mut Memory, dst: &Access, cols: u32, sums: &[f32], overwrite: bool) {
    let n = dst.count() as usize;
    if !dst.dims.is_dense() {
        write_rows(mem, dst, cols, |m, j, old| {
            let acc = sums[m * n + j];
            if overwrite {
                acc.to_bits()
            } else {
                (f32::from_bits(old) + acc).to_bits()
            }
        });
        return;
    }
    let starts: Vec<usize> = (0..cols)
        .map(|m| mem.part_base(Space::Psum, dst.part0 + m) + dst.byte(0) as usize)
        .collect();
    let (data, init) = mem.parts_mut(Space::Psum);
    simd::vectorize(
        #[inline(always)]
        || {
            for (&start, row) in starts.iter().zip(sums.chunks_exact(n)) {
                let out = data[start..start + 4 * n].as_chunks_mut::<4>().0;
                if overwrite {
                    for (o, &v) in out.iter_mut().zip(row) {
                        *o = v.to_le_bytes();
                    }
                } else {
                    for (o, &v) in out.iter_mut().zip(row) {
                        *o = (f32::from_le_bytes(*o) + v).to_le_bytes();
                    }
                }
            }
        },
    );
    for start in starts {
        init.set_range(start, 4 * n);
    }
}

/// Writes `value(m, j, old)` (f32 bits; `old` is the element's bits before the
/// instruction) to element j of channel m of the PSUM `dst`, for `m < cols`, element by
/// element in walk order. A channel's old values are all read before it is written.
fn write_rows(mem: &mut Memory, dst: &Access, cols: u32, value: impl Fn(usize, usize, u32) -> u32) {
    if dst.dims.is_dense() {
        // One contiguous run per partition (the usual PSUM tile): each element is read and
        // written in place, in walk order — no element is visited twice, so this is the
        // loop below without its index lists.
        let n = dst.count() as usize;
        for m in 0..cols {
            let start = mem.part_base(Space::Psum, dst.part0 + m) + dst.byte(0) as usize;
            let (data, init) = mem.parts_mut(Space::Psum);
            let row = data[start..start + 4 * n].as_chunks_mut::<4>().0;
            for (j, o) in row.iter_mut().enumerate() {
                *o = value(m as usize, j, u32::from_le_bytes(*o)).to_le_bytes();
            }
            init.set_range(start, 4 * n);
        }
        return;
    }
    for m in 0..cols {
        let idx = element_indices(mem, dst, m);
        let bits: Vec<u32> = (idx.iter().enumerate())
            .map(|(j, &i)| value(m as usize, j, read_raw(mem, Space::Psum, i, 4)))
            .collect();
        for (i, b) in idx.into_iter().zip(bits) {
            write_raw(mem, Space::Psum, i, 4, b);
        }
    }
}

/// Writes the transpose of the loaded weights' raw bits (`raw`, `rows` × `cols` row-major:
/// row j = partition j) into `cols` channels of the PSUM `dst`: element j of channel m is
/// `raw[j][m]` (§1.8). A walk that is one contiguous run per partition takes a cache-blocked
/// transpose and one copy per row; any other walk goes element by element ([`write_rows`],
/// the plain form `transposed_write_matches_the_element_form` holds this one to).
fn write_transposed(
    mem: &mut Memory,
    dst: &Access,
    cols: u32,
    raw: &[u32],
    rows: usize,
    buf: &mut Vec<u32>,
) {
    let (c, n) = (cols as usize, dst.count() as usize);
    if !dst.dims.is_dense() || n != rows || raw.len() != rows * c {
        write_rows(mem, dst, cols, |m, j, _| raw[j * c + m]);
        return;
    }
    // The transpose writes every element.
    let t = super::whole(buf, c * n);
    transpose::transpose(raw, t, c, rows);
    let starts: Vec<usize> = (0..cols)
        .map(|m| mem.part_base(Space::Psum, dst.part0 + m) + dst.byte(0) as usize)
        .collect();
    let (data, init) = mem.parts_mut(Space::Psum);
    for (&start, row) in starts.iter().zip(t.chunks_exact(n)) {
        let out = data[start..start + 4 * n].as_chunks_mut::<4>().0;
        for (o, &b) in out.iter_mut().zip(row) {
            *o = b.to_le_bytes();
        }
        init.set_range(start, 4 * n);
    }
}

/// LoadWeights 0x01.
pub(super) fn load_weights(cx: &mut Cx<'_>, s: &S3Lw) -> Result<(), FaultCause> {
    let gen = cx.gen;
    let get = |n: &str| s.ctrl.get(gen, n);
    refuse_unknown_controls(get)?;
    refuse_nonzero(
        s.bg_xpose_mode(gen).map(u16::from),
        "bg_xpose_mode",
        "the BG_XPOSE_MODE values are not given (isa-facts-pe-act-dma §1.8, §8 item 3)",
    )?;
    if gen == Gen::Maverick {
        for f in ["tile_size", "tile_sel", "perf_mode"] {
            refuse_nonzero(
                get(f),
                f,
                "maverick tiling and MX modes are not modelled (isa-facts-pe-act-dma §1.5.6)",
            )?;
        }
    }
    if s.in_dtype == Dtype::UINT8 {
        return Err(unsupported(
            "uint8 PE input: the integer accumulation width and overflow are not public \
             (isa-facts-pe-act-dma §1.3)"
                .into(),
        ));
    }
    let rows = u32::from(get("num_active_rows").unwrap_or(0));
    let cols = match get("num_active_cols") {
        Some(0) if gen == Gen::Maverick => 256,
        Some(c) => u32::from(c),
        None => 0,
    };
    let src = src_access(cx, &s.src_mem_pattern, s.in_dtype, rows)?;
    if src.count() != u64::from(cols) {
        return Err(FaultCause::OutOfRange {
            operand: "src_mem_pattern",
            detail: format!(
                "{} elements per partition for {cols} array columns",
                src.count()
            ),
        });
    }
    cx.limit(src.count(), rows)?;
    cx.check_reads(&src, rows, |_| true);
    cx.gate()?;
    let n = (rows * cols) as usize;
    // The last weights' buffers hold the new ones, which read_inputs writes whole.
    let (mut values, mut raw) = match cx.st.pe.take() {
        Some(w) => (w.values, w.raw),
        None => std::mem::take(&mut cx.scratch.pe.weights),
    };
    values.resize(n, 0.0);
    raw.resize(n, 0);
    let fp8 = cx.cfg.fp8;
    let (dtype, mode) = (s.in_dtype, s.fp32_mode);
    read_inputs(
        &cx.st.mem,
        &src,
        rows,
        dtype,
        mode,
        &fp8,
        &mut values,
        Some(&mut raw),
    );
    cx.st.pe = Some(PeWeights {
        rows,
        cols,
        dtype: s.in_dtype,
        values,
        raw,
        transpose: get("transpose_mode") == Some(1),
    });
    cx.out.elements = u64::from(rows) * u64::from(cols);
    cx.out.cost = CostShape::LoadWeights {
        columns: u64::from(cols),
        fp32: dtype == Dtype::FP32 && mode != PeFp32Mode::LOW,
    };
    Ok(())
}

/// Matmul 0x02.
pub(super) fn matmul(cx: &mut Cx<'_>, s: &S3d3Mm) -> Result<(), FaultCause> {
    let gen = cx.gen;
    if gen == Gen::Maverick {
        return Err(unsupported(
            "Matmul on maverick: the v5 PSUM size and address window and how a group ends \
             are not public (isa-facts-pe-act-dma §1.5.2, §1.6, §8 item 5)"
                .into(),
        ));
    }
    let get = |n: &str| s.ctrl.get(gen, n);
    refuse_unknown_controls(get)?;
    if s.in_dtype == Dtype::UINT8 {
        return Err(unsupported(
            "uint8 PE input: the integer accumulation width and overflow are not public \
             (isa-facts-pe-act-dma §1.3)"
                .into(),
        ));
    }
    if get("out_dtype") == Some(u16::from(Dtype::BFLOAT16.0)) {
        return Err(unsupported(
            "a bfloat16 PSUM result (mariana): how RNE or stochastic rounding is chosen is \
             not given (isa-facts-pe-act-dma §1.6)"
                .into(),
        ));
    }
    let Some(w) = cx.st.pe.as_ref() else {
        return Err(FaultCause::OutOfRange {
            operand: "weights",
            detail: "no LoadWeights ran before this Matmul (the PE array's contents at reset \
                     are not public, isa-facts-pe-act-dma §1.2)"
                .into(),
        });
    };
    let rows = u32::from(get("num_active_rows").unwrap_or(0));
    let cols = u32::from(get("num_active_cols").unwrap_or(0));
    if (rows, cols) != (w.rows, w.cols) {
        return Err(FaultCause::OutOfRange {
            operand: "ctrl",
            detail: format!(
                "{rows} rows × {cols} columns, but the loaded weights are {} × {}",
                w.rows, w.cols
            ),
        });
    }
    // §1.7: stationary and moving may differ, except that fp32 pairs only with fp32.
    if (w.dtype == Dtype::FP32) != (s.in_dtype == Dtype::FP32) {
        return Err(FaultCause::OutOfRange {
            operand: "in_dtype",
            detail: format!(
                "moving {} with stationary {}: if either is fp32 both must be \
                 (isa-facts-pe-act-dma §1.7)",
                s.in_dtype, w.dtype
            ),
        });
    }
    let transpose = get("transpose_mode") == Some(1);
    let src = src_access(cx, &s.src_mem_pattern, s.in_dtype, rows)?;
    let dst = cx.tensor(
        &s.dst_mem_pattern,
        "dst_mem_pattern",
        Dtype::FP32,
        Role::WRITE,
        cols,
    )?;
    if dst.space != Space::Psum {
        return Err(FaultCause::BadAddress {
            operand: "dst_mem_pattern",
            detail: "the PE writes only to PSUM (isa-facts-pe-act-dma §1.2)".into(),
        });
    }
    let count = src.count();
    if dst.count() != count {
        return Err(FaultCause::OutOfRange {
            operand: "dst_mem_pattern",
            detail: format!(
                "{} outputs per partition for {count} moving elements",
                dst.count()
            ),
        });
    }
    if transpose && (w.dtype.size() != Some(4) || count != u64::from(rows)) {
        return Err(unsupported(format!(
            "the bit-accurate transpose of {} data ({count} columns for {rows} rows): tpb \
             models the fp32 square transpose only; the PSUM layout of a 16/8-bit transpose \
             result is not given (isa-facts-pe-act-dma §1.8)",
            w.dtype
        )));
    }
    cx.limit(count.saturating_mul(u64::from(rows)), cols)?;
    let overwrite = get("psum_accumulate_flags").unwrap_or(3) & 1 != 0;
    cx.check_reads(&src, rows, |_| true);
    if !overwrite {
        cx.check_reads(&dst, cols, |_| true);
    }
    if !transpose {
        cx.out
            .warn(WarningKind::ExactPerOurChoice, PE_SUMMATION_ORDER.into());
    }
    cx.gate()?;

    let n = count as usize;
    let Some(w) = cx.st.pe.as_ref() else {
        return Ok(());
    };
    let wcols = w.cols as usize;
    if transpose {
        // Bit-accurate: dst[m][j] = W[j][m], no arithmetic (§1.8); the moving tile's values
        // do not enter the result (its reads were checked above).
        let buf = &mut cx.scratch.pe.transposed;
        write_transposed(&mut cx.st.mem, &dst, cols, &w.raw, rows as usize, buf);
    } else {
        // The moving tile as x[k][j] (row k = partition k, in walk order): read_inputs
        // writes all of it, the map all of the weights, pe::matmul all of the sums.
        let fp8 = cx.cfg.fp8;
        let bufs = &mut cx.scratch.pe;
        let x = super::whole(&mut bufs.moving, n * rows as usize);
        let (dtype, mode) = (s.in_dtype, s.fp32_mode);
        read_inputs(&cx.st.mem, &src, rows, dtype, mode, &fp8, x, None);
        // The sums in our order, all at once (numerics::pe::matmul, the blocked form of
        // dot_strided), then the PSUM write: store, or add to the old fp32 value.
        let sums = super::whole(&mut bufs.sums, wcols * n);
        pe::matmul(&w.values, wcols, x, n, sums);
        write_sums(&mut cx.st.mem, &dst, cols, sums, overwrite);
    }
    cx.out.touch(&dst, cols, true);
    cx.out.cost = CostShape::Matmul {
        moving: count,
        stationary: u64::from(cols),
        fp32: s.in_dtype == Dtype::FP32 && s.fp32_mode != PeFp32Mode::LOW,
        transpose,
    };
    cx.out.elements = count * u64::from(cols);
    cx.out.bytes_written = cx.out.elements * 4;
    cx.out.written = Some(dst.region(cols));
    Ok(())
}
