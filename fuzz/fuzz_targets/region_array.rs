//! The region/array conversion the Python binding runs for `Machine.write(region, array)`
//! and `Machine.read(region)` (crates/tpb-python/src/machine.rs), on the Rust functions it
//! calls: `RegionSpec::parse`, `bind_to(dtype, shape)`, `resolve(gen)`, `write_tensor` and
//! `read_region`. Any region text, dtype and shape (up to 70 dimensions, sizes up to 2^64)
//! never panics and never allocates beyond the machine: a shape is refused before its bytes
//! are. What is written reads back bit for bit, through the tensor and through the region
//! text with the dtype and shape spelled out.
//!
//! Input: generation, dtype, dimension count, each dimension as a little-endian u16 (or,
//! with the count's high bit, a u64), the region text up to a NUL, then the array bytes
//! (repeated to the array's length when that is at most 1 MiB).
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::sync::{Mutex, OnceLock};
use tpb_fuzz::{fresh, gen_of};
use tpb_isa::{Dtype, Gen};
use tpb_sim::region::RegionSpec;
use tpb_sim::Machine;

/// The dtypes NumPy arrays map to (crates/tpb-python/src/arrays.rs) and two it refuses.
const DTYPES: [Dtype; 12] = [
    Dtype::FP32,
    Dtype::FP16,
    Dtype::BFLOAT16,
    Dtype::FP8_EXP3,
    Dtype::FP8_EXP4,
    Dtype::FP8_EXP5,
    Dtype::INT8,
    Dtype::UINT8,
    Dtype::INT16,
    Dtype::UINT16,
    Dtype::INT32,
    Dtype::UINT32,
];

/// The largest array the target builds bytes for.
const MAX_BYTES: usize = 1 << 20;

fn take<'a>(data: &mut &'a [u8], n: usize) -> Option<&'a [u8]> {
    let (head, tail) = data.split_at_checked(n)?;
    *data = tail;
    Some(head)
}

fuzz_target!(|data: &[u8]| {
    static MACHINES: OnceLock<Mutex<Vec<Machine>>> = OnceLock::new();
    let mut data = data;
    let Some(&[g, d, n]) = take(&mut data, 3).and_then(|h| <&[u8; 3]>::try_from(h).ok()) else {
        return;
    };
    let gen = gen_of(g);
    let dtype = DTYPES[usize::from(d) % DTYPES.len()];
    let wide = n & 0x80 != 0;
    let mut shape = Vec::new();
    for _ in 0..usize::from(n & 0x7f) % 71 {
        let dim = if wide {
            take(&mut data, 8).map(|b| u64::from_le_bytes(b.try_into().unwrap_or_default()))
        } else {
            take(&mut data, 2)
                .map(|b| u64::from(u16::from_le_bytes(b.try_into().unwrap_or_default())))
        };
        let Some(dim) = dim else { return };
        shape.push(usize::try_from(dim).unwrap_or(usize::MAX));
    }
    let text_len = data.iter().position(|&b| b == 0).unwrap_or(data.len());
    let Ok(text) = std::str::from_utf8(&data[..text_len]) else {
        return;
    };
    let payload = data.get(text_len + 1..).unwrap_or_default();
    let Ok(spec) = RegionSpec::parse(text) else {
        return;
    };
    let _ = spec.to_string();
    let Ok(bound) = spec.bind_to(dtype, &shape) else {
        return;
    };
    let Ok(tensor) = bound.resolve(gen) else {
        return;
    };
    let size = dtype.size().unwrap_or(1);
    let count = shape.iter().try_fold(1usize, |a, &d| a.checked_mul(d));
    let Some(len) = count
        .and_then(|c| c.checked_mul(size))
        .filter(|&l| l <= MAX_BYTES)
    else {
        return;
    };
    let bytes: Vec<u8> = if payload.is_empty() {
        vec![0x5a; len]
    } else {
        payload.iter().copied().cycle().take(len).collect()
    };
    let machines =
        MACHINES.get_or_init(|| Mutex::new(Gen::ALL.iter().map(|&g| fresh(g)).collect()));
    let mut machines = machines.lock().unwrap_or_else(|e| e.into_inner());
    let m = &mut machines[Gen::ALL.iter().position(|&x| x == gen).unwrap_or(0)];
    // A wrong length is refused, whatever the region.
    assert!(
        m.write_tensor(&tensor, &bytes[..len.saturating_sub(1)])
            .is_err()
            || len == 0
    );
    if m.write_tensor(&tensor, &bytes).is_err() {
        return;
    }
    let back = m
        .read_tensor(&tensor)
        .expect("a region just written reads back");
    assert!(
        back == bytes,
        "read_tensor differs from what was written on {gen}"
    );
    let dims: Vec<String> = bound.shape.iter().map(usize::to_string).collect();
    let spelled = format!("{}:{dtype}:{}", spec.place(), dims.join("x"));
    if let Ok(full) = RegionSpec::parse(&spelled) {
        if let Ok(read) = m.read_region(&full) {
            assert!(
                read.bytes == bytes,
                "read_region({spelled}) differs on {gen}"
            );
        }
    }
});
