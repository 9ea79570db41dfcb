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

use super::access::{raw_to_bytes, Access};
use super::dense::{self, CHUNK};
use super::lanes::{gather_all, record_write, scatter};
use super::{pair_kernels, Cx, Role};
use crate::assumptions::{
    max8_values, search_first_matches, search_first_matches_from, search_no_match, SEARCH_SLOTS,
};
use crate::numerics::{decode_values, from_f32, simd, to_f32};
use crate::report::{FaultCause, WarningKind};
use tpb_isa::wire::{CtrlIm, D4Mr, S2Bn, S4d2Bn, S4d4Mr};
use tpb_isa::Dtype;

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
pub(super) fn max8_find_index8(cx: &mut Cx<'_>, s: &S4d2Bn, find: bool) -> Result<(), FaultCause> {
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
        // One SIMD dispatch for the instruction; each lane decoded once, an L1 chunk at a
        // time (`dense`): Max8 keeps a running top 8 of the values that can reach it
        // ([`Max8Scan`]), FindIndex8 runs the first-match definition piece by piece,
        // skipping blocks that equal no key still unfound.
        let mem = &cx.st.mem;
        let lanes = &cx.st.dve.lanes;
        let size = src.size;
        let mut t = [0f32; CHUNK];
        let mut outs = Vec::with_capacity(n as usize);
        let mut flags = Vec::with_capacity(n as usize);
        simd::vectorize(
            #[inline(always)]
            || {
                for c in 0..n {
                    let row = dense::channel(mem, &src, c);
                    let keys = lanes[c as usize].match_keys.map(f32::from_bits);
                    let mut found = [None; SEARCH_SLOTS];
                    let mut scan = Max8Scan::new();
                    for (k, bytes) in row.chunks(CHUNK * size).enumerate() {
                        let t = &mut t[..bytes.len() / size];
                        decode_values(s.in_dtype, bytes, t, &fp8);
                        if find {
                            find_in_chunk(&keys, &mut found, t, (k * CHUNK) as u32);
                        } else {
                            scan.feed(t, k * CHUNK);
                        }
                    }
                    if find {
                        outs.push(found.map(|f| f.map_or(none, |i| i & none)));
                        flags.push(found.map(|f| f.is_some()));
                    } else {
                        let mut one = [0f32];
                        let top = scan.top.values(|p| {
                            decode_values(s.in_dtype, &row[p * size..][..size], &mut one, &fp8);
                            one[0]
                        });
                        outs.push(top.map(|v| from_f32(s.out_dtype, v, &fp8)));
                    }
                }
            },
        );
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
            outs.push(found.map(|f| f.map_or(none, |i| i & none)));
            flags.push(found.map(|f| f.is_some()));
        } else {
            let top = max8_values(&xs);
            outs.push(top.map(|v| from_f32(s.out_dtype, v, &fp8)));
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
    outs: &[[u32; SEARCH_SLOTS]],
    flags: &[[bool; SEARCH_SLOTS]],
) {
    let size = dst.size;
    let dense = dense::write_each_channel(&mut cx.st.mem, dst, n, |c, out| {
        raw_to_bytes(size, &outs[c as usize], out);
    });
    if !dense {
        for (c, vals) in outs.iter().enumerate() {
            scatter(&mut cx.st.mem, dst, c as u32, vals);
        }
    }
    for (lane, f) in cx.st.dve.lanes.iter_mut().zip(flags) {
        lane.matched = *f;
    }
    record_write(cx.out, dst, n, SEARCH_SLOTS as u64);
}

/// [`search_first_matches_from`] over a decoded chunk whose first element has flat index
/// `base`, skipping the 16-element blocks that hold no key of a slot still unfound (only
/// those slots can take a match, and the definition compares with `==`, so a NaN in a found
/// slot's place matches nothing); once every slot is found the rest is skipped.
#[inline(always)]
fn find_in_chunk(
    keys: &[f32; SEARCH_SLOTS],
    found: &mut [Option<u32>; SEARCH_SLOTS],
    xs: &[f32],
    base: u32,
) {
    const BLOCK: usize = 16;
    let unfound = |found: &[Option<u32>; SEARCH_SLOTS]| {
        let mut live = *keys;
        for (k, f) in live.iter_mut().zip(found) {
            if f.is_some() {
                *k = f32::NAN;
            }
        }
        live
    };
    let mut live = unfound(found);
    let mut left = found.iter().filter(|f| f.is_none()).count();
    for (b, block) in xs.chunks(BLOCK).enumerate() {
        if left == 0 {
            return;
        }
        let l = live;
        let hit = move |x: f32| l.iter().fold(false, |h, &k| h | (k == x));
        if block.iter().fold(false, |a, &x| a | hit(x)) {
            // Bit i: element i equals a key still unfound; only those elements can match.
            let mut hits = 0u32;
            for (i, &x) in block.iter().enumerate() {
                hits |= u32::from(hit(x)) << i;
            }
            while hits != 0 {
                let i = hits.trailing_zeros() as usize;
                hits &= hits - 1;
                let at = base + (b * BLOCK + i) as u32;
                search_first_matches_from(keys, found, &block[i..=i], at);
            }
            live = unfound(found);
            left = found.iter().filter(|f| f.is_none()).count();
        }
    }
}

/// A running Max8 ([`max8_values`], Q22) over a lane's values in order: the 8 largest under
/// the definition's stable order — the key (NaN as −inf), a NaN below a −inf, then the
/// source position, so a later value beats an equal earlier one — as the 8 largest of
/// `(rank_key, position)` packed in one integer (all distinct), kept ascending. An insertion
/// is branch-free over the 8 lanes. Checked against the sort-based definition by
/// `top8_of_matches_max8_values` below.
struct Top8 {
    /// `rank_key << 32 | position + 1`, ascending; `i64::MIN` (no position 0) is empty.
    keys: [i64; SEARCH_SLOTS],
}

impl Top8 {
    fn new() -> Self {
        Self {
            keys: [i64::MIN; SEARCH_SLOTS],
        }
    }

    /// Offers `x`, the lane's value at `pos`.
    #[inline(always)]
    fn push(&mut self, pos: usize, x: f32) {
        let g = (i64::from(rank_key(x)) << 32) | (pos as i64 + 1);
        let b = self.keys;
        // Drop the smallest and insert g in order; nothing changes if g is below b[0].
        for i in 0..SEARCH_SLOTS - 1 {
            self.keys[i] = b[i].max(b[i + 1].min(g));
        }
        self.keys[SEARCH_SLOTS - 1] = b[SEARCH_SLOTS - 1].max(g);
    }

    /// The 8 values ascending, `at(pos)` the lane's value at `pos`; NaNs fill the low slots
    /// of a lane with fewer than 8.
    fn values(&self, mut at: impl FnMut(usize) -> f32) -> [f32; SEARCH_SLOTS] {
        self.keys.map(|k| match k {
            i64::MIN => f32::NAN,
            k => at((k & 0xFFFF_FFFF) as usize - 1),
        })
    }
}

/// Max8 over a lane's values fed in order, piece by piece: the running [`Top8`] fed only the
/// values that can be in the result. The values are split into groups (lane `j` of each
/// 256-value block: element `j` of each of its 16-value rows, so that the group maxima are
/// vertical vector maxima), and the 8th largest maximum `t` of the groups fed so far is
/// taken, in the rank order with −0 as +0 and a NaN below −inf ([`rank_key`]): eight
/// distinct values rank at `t` or above, so a value ranking strictly below `t` is beaten by
/// eight and cannot be in the result (`t` only rises). Feeding only the values at `t` or
/// above (16-value blocks with none skipped) gives the same 8 values as feeding them all:
/// checked against [`max8_values`] by `top8_of_matches_max8_values` below.
struct Max8Scan {
    /// The 8 largest group maxima, ascending; the bottom (every value passes) below 8 groups.
    best: [i32; SEARCH_SLOTS],
    top: Top8,
}

impl Max8Scan {
    fn new() -> Self {
        Self {
            best: [i32::MIN; SEARCH_SLOTS],
            top: Top8::new(),
        }
    }

    /// Feeds `xs`, the lane's values from position `base` on. Once 8 are kept, a value
    /// ranking below the smallest kept rank cannot enter either, and that bound replaces
    /// the group maxima (one pass over the values instead of two).
    #[inline(always)]
    fn feed(&mut self, xs: &[f32], base: usize) {
        const LANES: usize = 16;
        let full = self.top.keys[0] != i64::MIN;
        if !full {
            for block in xs.chunks(LANES * LANES) {
                let mut m = [i32::MIN; LANES];
                let (rows, rest) = block.as_chunks::<LANES>();
                for row in rows {
                    for (m, &x) in m.iter_mut().zip(row) {
                        *m = (*m).max(rank_key(x));
                    }
                }
                for (m, &x) in m.iter_mut().zip(rest) {
                    *m = (*m).max(rank_key(x));
                }
                for g in m {
                    // As `Top8::push` (ties need no order here).
                    let b = self.best;
                    for i in 0..SEARCH_SLOTS - 1 {
                        self.best[i] = b[i].max(b[i + 1].min(g));
                    }
                    self.best[SEARCH_SLOTS - 1] = b[SEARCH_SLOTS - 1].max(g);
                }
            }
        }
        let kept = if full {
            (self.top.keys[0] >> 32) as i32
        } else {
            i32::MIN
        };
        let t = self.best[0].max(kept);
        for (b, block) in xs.chunks(LANES).enumerate() {
            if block.iter().fold(false, |a, &x| a | (rank_key(x) >= t)) {
                for (j, &x) in block.iter().enumerate() {
                    if rank_key(x) >= t {
                        self.top.push(base + b * LANES + j, x);
                    }
                }
            }
        }
    }
}

/// Max8's rank of `x` ([`Top8::rank`]) as an integer that sorts the same way: −0 counts as
/// +0, a NaN is the bottom (below −inf's key).
#[inline(always)]
fn rank_key(x: f32) -> i32 {
    pair_kernels::KeyLanes::<true>::key(x + 0.0)
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
    let datapath = dense::datapath(&[s.in_dtype, s.out_dtype]);
    // In place (`dst` is `src`, as NKI kernels write it): chunk by chunk, each read before
    // its bytes are written; FP32 → FP32 writes only the matches (the rest is unchanged).
    let in_place = dense::readable(&src)
        && (dst.space, dst.part0, dst.lo, dst.hi) == (src.space, src.part0, src.lo, src.hi)
        && dst.size == src.size;
    if datapath && (in_place || dense::applies(&[&src], &dst, n)) {
        // One SIMD dispatch for the instruction (`dense`): per chunk, decode, find its
        // matches, put the immediate in their places, encode.
        let lanes = &mut cx.st.dve.lanes;
        let (si, so) = (src.size, dst.size);
        let (din, dout) = (s.in_dtype, s.out_dtype);
        let fp32 = din == Dtype::FP32 && dout == Dtype::FP32;
        let imm_bytes = imm.to_le_bytes();
        let mut founds = [[None; SEARCH_SLOTS]; 128];
        let mut t = [0f32; CHUNK];
        let mut done = false;
        simd::vectorize(
            #[inline(always)]
            || {
                let mut lane = |c: u32, x: &[u8], d: Option<&mut [u8]>| {
                    let keys = lanes[c as usize].match_keys.map(f32::from_bits);
                    let found = &mut founds[c as usize];
                    let mut d = d;
                    for k in (0..count as usize).step_by(CHUNK) {
                        let len = CHUNK.min(count as usize - k);
                        let t = &mut t[..len];
                        decode_values(din, &x[k * si..(k + len) * si], t, &fp8);
                        let before = *found;
                        find_in_chunk(&keys, found, t, k as u32);
                        for (i, b) in found.iter().zip(&before) {
                            if let (Some(i), None) = (i, b) {
                                t[*i as usize - k] = imm;
                            }
                        }
                        if let Some(d) = d.as_deref_mut() {
                            pair_kernels::encode_in(dout, t, &mut d[k * so..(k + len) * so], &fp8);
                        }
                    }
                    *found
                };
                done = if !in_place {
                    dense::for_each_channel(
                        &mut cx.st.mem,
                        [&src, &src],
                        &dst,
                        n,
                        |c, [x, _], d| {
                            lane(c, x, Some(d));
                        },
                    )
                } else if fp32 {
                    // Unmatched FP32 elements keep their bits: write only the matches.
                    dense::write_each_channel(&mut cx.st.mem, &dst, n, |c, d| {
                        for i in lane(c, d, None).iter().flatten() {
                            d[*i as usize * 4..][..4].copy_from_slice(&imm_bytes);
                        }
                    })
                } else {
                    dense::write_each_channel(&mut cx.st.mem, &dst, n, |c, d| {
                        let x = d.to_vec();
                        lane(c, &x, Some(d));
                    })
                };
            },
        );
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

    /// The running top 8, alone and fed through the threshold of [`Max8Scan`], against the
    /// sort-based definition: ties, ±0 (equal ranks, later wins), ±inf, NaNs of both signs
    /// and payloads, subnormals, duplicates, lanes shorter than 8 and lanes of many groups.
    #[test]
    fn top8_of_matches_max8_values() {
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
            f32::from_bits(0x7F80_0001),
            f32::from_bits(1),
            f32::from_bits(0x8000_0001),
            2.5,
            -7.0,
            3.0,
        ];
        let mut state = 0x2545_F491u32;
        for len in (0..40).chain([255, 256, 257, 300, 1000, 2100]) {
            for round in 0..20 {
                let xs: Vec<f32> = (0..len)
                    .map(|_| {
                        state ^= state << 13;
                        state ^= state >> 17;
                        state ^= state << 5;
                        match (round % 3, state % 7) {
                            // Spread values (any bits: NaNs, subnormals, infinities too).
                            (1, 0..=5) => f32::from_bits(state.rotate_left(7)),
                            // Few distinct values: ties, ±0 at the threshold.
                            (2, _) => [0.0, -0.0, 1.0, -1.0, 2.0][(state >> 8) as usize % 5],
                            _ => pool[state as usize % pool.len()],
                        }
                    })
                    .collect();
                let mut top = Top8::new();
                xs.iter().enumerate().for_each(|(i, &x)| top.push(i, x));
                let bits = |v: [f32; SEARCH_SLOTS]| v.map(f32::to_bits);
                assert_eq!(
                    bits(top.values(|p| xs[p])),
                    bits(max8_values(&xs)),
                    "{xs:?}"
                );
                // Fed in pieces of 1 Ki values (as the dense path) and of 100.
                for piece in [CHUNK, 100] {
                    let mut scan = Max8Scan::new();
                    for (k, p) in xs.chunks(piece).enumerate() {
                        scan.feed(p, k * piece);
                    }
                    let got = scan.top.values(|p| xs[p]);
                    assert_eq!(bits(got), bits(max8_values(&xs)), "{piece} {xs:?}");
                }
            }
        }
    }
}
