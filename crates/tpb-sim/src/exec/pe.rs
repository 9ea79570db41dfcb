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
//! Operands are gathered element by element (at most 128 × 128 weights and 128 × 512 moving
//! elements); the sums run in `numerics::pe::matmul`, a register-blocked loop that keeps the
//! documented order (its differential test holds it to the per-element `dot_strided`). The numbers are exact per our order, never the hardware's bits
//! (assumption `pe-summation-order`); each Matmul says so in its report. What the sheet does
//! not give is refused with the missing fact named.

use super::access::{Access, Cursor};
use super::{Cx, Role};
use crate::assumptions::PE_SUMMATION_ORDER;
use crate::machine::{CostShape, FaultCause, Memory, PeWeights, WarningKind};
use crate::numerics::pe::{self, round_tf32};
use crate::numerics::{from_f32, to_f32};
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

/// Converts a multiplier input per the fp32 mode (tf32 for `low`, §8 item 7).
fn pe_value(dtype: Dtype, bits: u32, mode: PeFp32Mode, cx: &Cx<'_>) -> f32 {
    let v = to_f32(dtype, bits, &cx.cfg.fp8);
    if dtype == Dtype::FP32 && mode == PeFp32Mode::LOW {
        round_tf32(v)
    } else {
        v
    }
}

fn src_access(cx: &Cx<'_>, t: &Tensor<3>, dtype: Dtype, rows: u32) -> Result<Access, FaultCause> {
    let role = Role {
        write: false,
        psum: false,
    };
    cx.tensor(t, "src_mem_pattern", dtype, role, rows)
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
    let (mut values, mut raw) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for k in 0..rows {
        for i in element_indices(&cx.st.mem, &src, k) {
            let bits = read_raw(&cx.st.mem, src.space, i, src.size);
            raw.push(bits);
            values.push(pe_value(s.in_dtype, bits, s.fp32_mode, cx).to_bits());
        }
    }
    cx.st.pe = Some(PeWeights {
        rows,
        cols,
        dtype: s.in_dtype,
        values,
        raw,
        transpose: get("transpose_mode") == Some(1),
    });
    cx.out.elements = u64::from(rows) * u64::from(cols);
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

    // Gather the moving tile as x[k][j] (row k = partition k, in walk order).
    let n = count as usize;
    let mut x = vec![0f32; n * rows as usize];
    for k in 0..rows {
        let row = &mut x[k as usize * n..(k as usize + 1) * n];
        for (v, i) in row.iter_mut().zip(element_indices(&cx.st.mem, &src, k)) {
            let bits = read_raw(&cx.st.mem, src.space, i, src.size);
            *v = pe_value(s.in_dtype, bits, s.fp32_mode, cx);
        }
    }
    let Some(w) = cx.st.pe.as_ref() else {
        return Ok(());
    };
    let wcols = w.cols as usize;
    // The sums in our order, all at once (numerics::pe::matmul, the blocked form of
    // dot_strided); the transpose path does no arithmetic.
    let mut sums = Vec::new();
    if !transpose {
        let wv: Vec<f32> = w.values.iter().map(|&b| f32::from_bits(b)).collect();
        sums = vec![0f32; wcols * n];
        pe::matmul(&wv, wcols, &x, n, &mut sums);
    }
    let Some(w) = cx.st.pe.as_ref() else {
        return Ok(());
    };
    let wraw = if transpose { w.raw.clone() } else { Vec::new() };
    let fp8 = cx.cfg.fp8;
    let mut bits = vec![0u32; n];
    for m in 0..cols {
        let idx = element_indices(&cx.st.mem, &dst, m);
        for (j, (&i, b)) in idx.iter().zip(bits.iter_mut()).enumerate() {
            *b = if transpose {
                // Bit-accurate: dst[m][j] = W[j][m], no arithmetic (§1.8).
                wraw[j * wcols + m as usize]
            } else {
                let acc = sums[m as usize * n + j];
                let v = if overwrite {
                    acc
                } else {
                    f32::from_bits(read_raw(&cx.st.mem, Space::Psum, i, 4)) + acc
                };
                from_f32(Dtype::FP32, v, &fp8)
            };
        }
        // A contiguous row (the usual PSUM tile) is stored in one copy; any other walk
        // element by element, in walk order.
        let row = &bits[..idx.len()];
        match idx.first() {
            Some(&start) if idx.windows(2).all(|p| p[1] == p[0] + 4) => {
                let (data, init) = cx.st.mem.parts_mut(Space::Psum);
                let dst_bytes = &mut data[start..start + 4 * row.len()];
                for (d, b) in dst_bytes.chunks_exact_mut(4).zip(row) {
                    d.copy_from_slice(&b.to_le_bytes());
                }
                init.set_range(start, 4 * row.len());
            }
            _ => {
                for (&i, &b) in idx.iter().zip(row) {
                    write_raw(&mut cx.st.mem, Space::Psum, i, 4, b);
                }
            }
        }
    }
    cx.out.touch(&dst, cols, true);
    cx.out.cost = CostShape::Matmul {
        moving: count,
        stationary: u64::from(cols),
        fp32: s.in_dtype == Dtype::FP32 && s.fp32_mode != PeFp32Mode::LOW,
    };
    cx.out.elements = count * u64::from(cols);
    cx.out.bytes_written = cx.out.elements * 4;
    cx.out.written = Some(dst.region(cols));
    Ok(())
}
