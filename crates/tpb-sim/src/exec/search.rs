//! The search cluster over the hidden match keys and index flops (isa-facts-dve-pool §16,
//! §13.2; assumption `search-cluster`): MatchValueLoad 0x6d, Max8 0x6c, FindIndex8 0x6e,
//! MatchReplace8 0x6f and the drain DveReadIndices 0xe9.
//!
//! ```text
//! 0x6d: mv[c][7-k] = f32(src[c][k]) for k < 8; matched[c][..] = false
//! 0x6c: dst[c][0..8] = the 8 largest f32(src[c][..]), ascending
//! 0x6e: found = first_matches(mv[c], f32(src[c][..])); dst[c][n] = found[n] or all ones
//! 0x6f: found = first_matches(..); dst[c][i] = i matched ? imm : src[c][i]; idx[c] = found
//! 0xe9: dst[c][n] = idx[c][n] as u16 / u32
//! ```
//! Every result is computed before the first write (plan → check → commit).

use super::access::Access;
use super::dense::{self, CHUNK};
use super::lanes::{gather_all, record_write, scatter};
use super::{kernels, Cx, Role};
use crate::assumptions::{
    max8_values, search_first_matches, search_first_matches_from, search_no_match, SEARCH_SLOTS,
};
use crate::machine::{FaultCause, WarningKind};
use crate::numerics::{from_f32, to_f32};
use tpb_isa::opcode::{Opcode, OpcodeInfo};
use tpb_isa::wire::{CtrlIm, D4Mr, S2Bn, S4d2Bn, S4d4Mr};

/// Warns about active lanes whose state `written` says no instruction has set.
fn warn_unset(cx: &mut Cx<'_>, n: u32, what: &str, written: impl Fn(usize) -> bool) {
    let unset: Vec<usize> = (0..n as usize).filter(|&c| !written(c)).collect();
    if let Some(&first) = unset.first() {
        cx.out.warn(
            WarningKind::DveStateUnset,
            format!(
                "reads the {what} of {} lane{} no instruction has written (first lane {first})",
                unset.len(),
                if unset.len() == 1 { "" } else { "s" }
            ),
        );
    }
}

/// MatchValueLoad (0x6d): 8 keys per lane, reversed.
pub(super) fn match_value_load(cx: &mut Cx<'_>, s: &S2Bn) -> Result<(), FaultCause> {
    let n = u32::from(s.num_active_channels);
    let src = cx.tensor(
        &s.src_mem_pattern,
        "src_mem_pattern",
        s.dtype,
        Role::READ,
        n,
    )?;
    if src.count() != SEARCH_SLOTS as u64 {
        return Err(FaultCause::OutOfRange {
            operand: "src_mem_pattern",
            detail: format!("{} elements, not 8", src.count()),
        });
    }
    cx.check_reads(&src, n, |_| true);
    cx.gate()?;
    let fp8 = cx.cfg.fp8;
    let rows = gather_all(&cx.st.mem, &src, n);
    for (lane, row) in cx.st.dve.lanes.iter_mut().zip(&rows) {
        for (k, &x) in row.iter().enumerate() {
            lane.match_keys[SEARCH_SLOTS - 1 - k] = to_f32(s.dtype, x, &fp8).to_bits();
        }
        lane.match_keys_loaded = true;
        lane.matched = [false; SEARCH_SLOTS];
    }
    cx.out.elements = SEARCH_SLOTS as u64 * u64::from(n);
    Ok(())
}

/// Max8 (0x6c) and FindIndex8 (0x6e).
pub(super) fn max8_find_index8(
    cx: &mut Cx<'_>,
    s: &S4d2Bn,
    row: &'static OpcodeInfo,
) -> Result<(), FaultCause> {
    let find = row.value == Opcode::FIND_INDEX8.0;
    let n = u32::from(s.num_active_channels);
    let src = cx.tensor(
        &s.src_mem_pattern,
        "src_mem_pattern",
        s.in_dtype,
        Role::READ,
        n,
    )?;
    let dst = cx.tensor(
        &s.dst_mem_pattern,
        "dst_mem_pattern",
        s.out_dtype,
        Role::WRITE,
        n,
    )?;
    if dst.count() != SEARCH_SLOTS as u64 {
        return Err(FaultCause::OutOfRange {
            operand: "dst_mem_pattern",
            detail: format!("{} elements, not 8", dst.count()),
        });
    }
    cx.limit(src.count(), n)?;
    cx.check_reads(&src, n, |_| true);
    if find {
        let lanes = &cx.st.dve.lanes;
        let loaded: Vec<bool> = lanes.iter().map(|l| l.match_keys_loaded).collect();
        warn_unset(cx, n, "match keys", |c| loaded[c]);
    }
    cx.gate()?;
    let fp8 = cx.cfg.fp8;
    let none = search_no_match(8 * dst.size as u32);
    if dense::readable(&src) && dense::datapath(&[s.in_dtype]) {
        // One pass over each lane's bytes in decoded chunks (`dense`): Max8 keeps a running
        // top 8 ([`Top8`]), FindIndex8 runs the first-match definition piece by piece,
        // skipping blocks that equal no key.
        let mut t = [0f32; CHUNK];
        let mut outs = Vec::with_capacity(n as usize);
        let mut flags = Vec::with_capacity(n as usize);
        for c in 0..n {
            let row = dense::channel(&cx.st.mem, &src, c);
            let keys = cx.st.dve.lanes[c as usize].match_keys.map(f32::from_bits);
            let mut top = Top8::default();
            let mut found = [None; SEARCH_SLOTS];
            for (k, bytes) in row.chunks(CHUNK * src.size).enumerate() {
                let t = &mut t[..bytes.len() / src.size];
                kernels::decode(s.in_dtype, bytes, t, &fp8);
                if find {
                    find_in_chunk(&keys, &mut found, t, (k * CHUNK) as u32);
                } else {
                    top.push_all(t);
                }
            }
            if find {
                outs.push(found.map(|f| f.map_or(none, |i| i & none)).to_vec());
                flags.push(found.map(|f| f.is_some()));
            } else {
                outs.push(
                    top.values()
                        .map(|v| from_f32(s.out_dtype, v, &fp8))
                        .to_vec(),
                );
            }
        }
        commit_search(cx, &dst, n, &outs, &flags);
        return Ok(());
    }
    let rows = gather_all(&cx.st.mem, &src, n);
    let mut outs = Vec::with_capacity(n as usize);
    let mut flags = Vec::with_capacity(n as usize);
    for (c, row) in rows.iter().enumerate() {
        let xs: Vec<f32> = row.iter().map(|&x| to_f32(s.in_dtype, x, &fp8)).collect();
        if find {
            let keys = cx.st.dve.lanes[c].match_keys.map(f32::from_bits);
            let found = search_first_matches(&keys, &xs);
            outs.push(found.map(|f| f.map_or(none, |i| i & none)).to_vec());
            flags.push(found.map(|f| f.is_some()));
        } else {
            let top = max8_values(&xs);
            outs.push(top.map(|v| from_f32(s.out_dtype, v, &fp8)).to_vec());
        }
    }
    commit_search(cx, &dst, n, &outs, &flags);
    Ok(())
}

/// The commit of Max8 / FindIndex8: each lane's 8 results, FindIndex8's matched flags.
fn commit_search(
    cx: &mut Cx<'_>,
    dst: &Access,
    n: u32,
    outs: &[Vec<u32>],
    flags: &[[bool; SEARCH_SLOTS]],
) {
    for (c, vals) in outs.iter().enumerate() {
        scatter(&mut cx.st.mem, dst, c as u32, vals);
    }
    for (lane, f) in cx.st.dve.lanes.iter_mut().zip(flags) {
        lane.matched = *f;
    }
    record_write(cx.out, dst, n, SEARCH_SLOTS as u64);
}

/// [`search_first_matches_from`] over a decoded chunk whose first element has flat index
/// `base`, skipping the 16-element blocks that hold no key (they cannot match: the
/// definition compares with `==`).
fn find_in_chunk(
    keys: &[f32; SEARCH_SLOTS],
    found: &mut [Option<u32>; SEARCH_SLOTS],
    xs: &[f32],
    base: u32,
) {
    const BLOCK: usize = 16;
    for (b, block) in xs.chunks(BLOCK).enumerate() {
        let hit = block.iter().fold(false, |a, &x| {
            a | keys.iter().fold(false, |h, &k| h | (k == x))
        });
        if hit {
            search_first_matches_from(keys, found, block, base + (b * BLOCK) as u32);
        }
    }
}

/// A running Max8 ([`max8_values`], Q22) over a lane's values in order: the 8 largest under
/// the definition's stable order — the key (NaN as −inf), a NaN below a −inf, then the
/// source position, so a later value beats an equal earlier one — kept ascending. Checked
/// against the sort-based definition by `top8_matches_max8_values` below.
#[derive(Default)]
struct Top8 {
    /// The kept values, ascending, in `vals[..len]`.
    vals: [f32; SEARCH_SLOTS],
    len: usize,
}

impl Top8 {
    /// The definition's key and NaN rank of `x`: (key, not NaN).
    #[inline(always)]
    fn rank(x: f32) -> (f32, bool) {
        if x.is_nan() {
            (f32::NEG_INFINITY, false)
        } else {
            (x, true)
        }
    }

    /// Whether a value of rank `a` that comes later beats one of rank `b`: `a >= b`.
    #[inline(always)]
    fn beats((ka, na): (f32, bool), (kb, nb): (f32, bool)) -> bool {
        ka > kb || (ka == kb && na >= nb)
    }

    #[inline(always)]
    fn push(&mut self, x: f32) {
        let r = Self::rank(x);
        if self.len == SEARCH_SLOTS {
            if !Self::beats(r, Self::rank(self.vals[0])) {
                return;
            }
            // Drop the smallest.
            self.vals.copy_within(1.., 0);
            self.len -= 1;
        }
        // After every kept value it beats (they came earlier), before the others.
        let at = self.vals[..self.len]
            .iter()
            .position(|&v| !Self::beats(r, Self::rank(v)))
            .unwrap_or(self.len);
        self.vals.copy_within(at..self.len, at + 1);
        self.vals[at] = x;
        self.len += 1;
    }

    /// [`Top8::push`] of each of `xs` in order, skipping the 16-element blocks in which no
    /// key reaches the smallest kept one's (none of them can beat it).
    fn push_all(&mut self, xs: &[f32]) {
        for block in xs.chunks(16) {
            if self.len == SEARCH_SLOTS {
                let kmin = Self::rank(self.vals[0]).0;
                let reach = block
                    .iter()
                    .fold(false, |a, &x| a | (Self::rank(x).0 >= kmin));
                if !reach {
                    continue;
                }
            }
            block.iter().for_each(|&x| self.push(x));
        }
    }

    /// The 8 values ascending; NaNs fill the low slots of a lane with fewer than 8.
    fn values(&self) -> [f32; SEARCH_SLOTS] {
        let mut out = [f32::NAN; SEARCH_SLOTS];
        out[SEARCH_SLOTS - self.len..].copy_from_slice(&self.vals[..self.len]);
        out
    }
}

/// MatchReplace8 (0x6f).
pub(super) fn match_replace8(cx: &mut Cx<'_>, s: &S4d4Mr) -> Result<(), FaultCause> {
    let n = u32::from(s.num_active_channels);
    let (src, dst, count) = cx.elementwise(
        (&s.src_mem_pattern, "src_mem_pattern", s.in_dtype),
        (&s.dst_mem_pattern, "dst_mem_pattern", s.out_dtype),
        n,
    )?;
    cx.check_reads(&src, n, |_| true);
    let loaded: Vec<bool> = cx
        .st
        .dve
        .lanes
        .iter()
        .map(|l| l.match_keys_loaded)
        .collect();
    warn_unset(cx, n, "match keys", |c| loaded[c]);
    cx.gate()?;
    let fp8 = cx.cfg.fp8;
    let imm = s.immediate.value();
    if dense::applies(&[&src], &dst, n) && dense::datapath(&[s.in_dtype, s.out_dtype]) {
        // One sweep per lane (`dense`): decode a chunk, find its matches, put the immediate
        // in their places, encode.
        let lanes = &mut cx.st.dve.lanes;
        let (si, so) = (src.size, dst.size);
        let mut founds = [[None; SEARCH_SLOTS]; 128];
        let mut t = [0f32; CHUNK];
        let done =
            dense::for_each_channel(&mut cx.st.mem, [&src, &src], &dst, n, |c, [x, _], d| {
                let keys = lanes[c as usize].match_keys.map(f32::from_bits);
                let found = &mut founds[c as usize];
                for k in (0..count as usize).step_by(CHUNK) {
                    let len = CHUNK.min(count as usize - k);
                    let t = &mut t[..len];
                    kernels::decode(s.in_dtype, &x[k * si..(k + len) * si], t, &fp8);
                    let before = *found;
                    find_in_chunk(&keys, found, t, k as u32);
                    for (i, b) in found.iter().zip(&before) {
                        if let (Some(i), None) = (i, b) {
                            t[*i as usize - k] = imm;
                        }
                    }
                    kernels::encode(s.out_dtype, t, &mut d[k * so..(k + len) * so], &fp8);
                }
            });
        if done {
            for (lane, found) in lanes.iter_mut().zip(&founds[..n as usize]) {
                lane.matched = found.map(|f| f.is_some());
                lane.index_flops = found.map(|f| f.unwrap_or(u32::MAX));
                lane.index_flops_written = true;
            }
            record_write(cx.out, &dst, n, count);
            return Ok(());
        }
    }
    let rows = gather_all(&cx.st.mem, &src, n);
    let mut outs = Vec::with_capacity(n as usize);
    let mut founds = Vec::with_capacity(n as usize);
    for (c, row) in rows.iter().enumerate() {
        let xs: Vec<f32> = row.iter().map(|&x| to_f32(s.in_dtype, x, &fp8)).collect();
        let keys = cx.st.dve.lanes[c].match_keys.map(f32::from_bits);
        let found = search_first_matches(&keys, &xs);
        let mut vals: Vec<u32> = xs.iter().map(|&x| from_f32(s.out_dtype, x, &fp8)).collect();
        let imm_bits = from_f32(s.out_dtype, imm, &fp8);
        for i in found.iter().flatten() {
            vals[*i as usize] = imm_bits;
        }
        outs.push(vals);
        founds.push(found);
    }
    for (c, vals) in outs.iter().enumerate() {
        scatter(&mut cx.st.mem, &dst, c as u32, vals);
    }
    for (lane, found) in cx.st.dve.lanes.iter_mut().zip(&founds) {
        lane.matched = found.map(|f| f.is_some());
        lane.index_flops = found.map(|f| f.unwrap_or(u32::MAX));
        lane.index_flops_written = true;
    }
    record_write(cx.out, &dst, n, count);
    Ok(())
}

/// DveReadIndices (0xe9): the 8 index flops of each lane, as u16 (low bits) or u32.
pub(super) fn read_indices(cx: &mut Cx<'_>, s: &D4Mr) -> Result<(), FaultCause> {
    let n = u32::from(s.num_active_channels);
    if n == 0 {
        return Ok(());
    }
    let dst = cx.tensor(
        &s.dst_mem_pattern,
        "dst_mem_pattern",
        s.dtype,
        Role::WRITE,
        n,
    )?;
    if dst.count() != SEARCH_SLOTS as u64 {
        return Err(FaultCause::OutOfRange {
            operand: "dst_mem_pattern",
            detail: format!("{} elements, not 8", dst.count()),
        });
    }
    let written: Vec<bool> = cx
        .st
        .dve
        .lanes
        .iter()
        .map(|l| l.index_flops_written)
        .collect();
    warn_unset(cx, n, "index flops", |c| written[c]);
    cx.gate()?;
    for c in 0..n {
        let idx = cx.st.dve.lanes[c as usize].index_flops;
        scatter(&mut cx.st.mem, &dst, c, &idx);
    }
    record_write(cx.out, &dst, n, SEARCH_SLOTS as u64);
    Ok(())
}

/// LoadMaskSelect (0x69): the 32 lane-select bytes become the core's mask-select table
/// (isa-facts-dve-pool §14.2; assumption `dve-lane-state`). No memory operand.
pub(super) fn load_mask_select(cx: &mut Cx<'_>, s: &CtrlIm) -> Result<(), FaultCause> {
    cx.gate()?;
    cx.st.dve.mask_select = Some(s.immediate.0);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The running top 8 against the sort-based definition: ties, ±0, ±inf, NaNs of both
    /// signs, lanes shorter than 8.
    #[test]
    fn top8_matches_max8_values() {
        let pool = [
            0.0f32,
            -0.0,
            1.0,
            1.0,
            -1.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            f32::from_bits(0xFFC0_0001),
            2.5,
            -7.0,
            3.0,
        ];
        let mut state = 0x2545_F491u32;
        for len in (0..40).chain([300, 1000]) {
            for _ in 0..20 {
                let xs: Vec<f32> = (0..len)
                    .map(|_| {
                        state ^= state << 13;
                        state ^= state >> 17;
                        state ^= state << 5;
                        pool[state as usize % pool.len()]
                    })
                    .collect();
                let mut top = Top8::default();
                xs.iter().for_each(|&x| top.push(x));
                let bits = |v: [f32; SEARCH_SLOTS]| v.map(f32::to_bits);
                assert_eq!(bits(top.values()), bits(max8_values(&xs)), "{xs:?}");
                let mut blocks = Top8::default();
                blocks.push_all(&xs);
                assert_eq!(bits(blocks.values()), bits(max8_values(&xs)), "{xs:?}");
            }
        }
    }
}
