//! `.npy` files for regions: reading an input or expected array with the region's dtype as
//! the element-type hint, and writing outputs (guide B.3).
//!
//! Reading rules (the element type a region ends up with):
//! - a file that names a numpy type which matches the region's dtype (or the region has none)
//!   is read as is;
//! - a file that cannot say its type (ml_dtypes' `<V2` bfloat16 and `<V1` fp8 blobs) takes
//!   the region's dtype, or `--dtype` / `.dtype` when the region has none;
//! - a *bit view* (an integer array of the same element size, e.g. `bf16.view(np.uint16)`, or
//!   ml_dtypes' `<f1` e5m2 file) is reinterpreted as the region's dtype;
//! - any other disagreement (e.g. a float16 file for a bfloat16 region) is an error: tpb never
//!   converts values on the way in.

use crate::atomic::FileSet;
use crate::npy::{npy_header, read_data, read_header, write_npy, NpyArray, NpyError, NpyStyle};
use std::path::Path;
use tpb_isa::geometry::Space;
use tpb_isa::{Dtype, Gen};
use tpb_sim::region::{BoundRegion as Bound, RegionSpec};
use tpb_sim::{HostError, Machine};

/// The memory a region must fit: the generation's SBUF and PSUM, and the machine's HBM.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Memory {
    /// The generation (SBUF/PSUM geometry).
    pub gen: Gen,
    /// The size of HBM in bytes (`--hbm-bytes`).
    pub hbm_bytes: u64,
}

impl Memory {
    /// The memory of `machine`.
    pub fn of(machine: &Machine) -> Memory {
        Memory {
            gen: machine.gen(),
            hbm_bytes: machine.hbm_size(),
        }
    }

    /// `gen`'s memory with the default HBM size.
    pub fn default_of(gen: Gen) -> Memory {
        Memory {
            gen,
            hbm_bytes: tpb_sim::DEFAULT_HBM_BYTES,
        }
    }
}

/// Reads `path` for `region`, with `default_dtype` (`--dtype`) used when the region names
/// none, and binds the region to the array. The header is read first and the bound region
/// checked against the memory (`fits`) before any data is read, so the data read is
/// bounded by the machine, whatever the header or the file's length says. Errors are one
/// line naming the file.
pub fn read_for_region(
    path: &Path,
    region: &RegionSpec,
    default_dtype: Option<Dtype>,
    mem: Memory,
) -> Result<(Bound, Vec<u8>), String> {
    let name = crate::cmd::shown(path);
    let io = |e: std::io::Error| format!("{name}: {e}");
    let file = crate::cmd::input::open_input(path).map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    if meta.is_dir() {
        return Err(format!("{name}: is a directory, not an .npy file"));
    }
    let mut r = std::io::BufReader::new(file);
    let header = read_header(&mut r).map_err(|e| format!("{name}: {e}"))?;
    let left = meta
        .is_file()
        .then(|| meta.len().saturating_sub(header.len as u64));
    let want = region.dtype.or(default_dtype);
    // The element type the file is read as (the rules in the module doc).
    let hint = match (header.dtype(None), want) {
        (Ok(_), None) => None,
        (Ok(d), Some(w)) if d == w => None,
        (Ok(d), Some(w)) if is_bit_view(d) && d.size() == w.size() => Some(w),
        (Ok(d), Some(w)) => {
            return Err(format!(
                "{name}: the file holds {d} but the region is {w} (tpb does not convert; \
                 save the array as {w}, or as its bits)"
            ))
        }
        (Err(NpyError::NeedsHint { .. }), Some(w)) => Some(w),
        (Err(NpyError::NeedsHint { descr, size, .. }), None) => {
            return Err(format!(
                "{name}: descr '{descr}' is a raw {size}-byte blob with no element type; \
                 name it in the region (e.g. {}:bf16) or with --dtype",
                region.place()
            ))
        }
        (Err(e), _) => return Err(format!("{name}: {e}")),
    };
    let dtype = header.dtype(hint).map_err(|e| format!("{name}: {e}"))?;
    if !tpb_sim::numerics::is_datapath_dtype(dtype) {
        return Err(format!(
            "{name}: the file holds {dtype}, which no region can hold (the datapath types are \
             int8..int32, uint8..uint32, fp16, bfloat16, fp32 and fp8)"
        ));
    }
    let bound = region
        .bind_to(dtype, &header.shape)
        .map_err(|e| format!("{name}: {e}"))?;
    fits(&bound, mem).map_err(|e| format!("{name}: {e}"))?;
    let arr = read_data(&mut r, &header, hint, left).map_err(|e| format!("{name}: {e}"))?;
    Ok((bound, arr.data))
}

/// Checks a bound region against the memory: `region sbuf[…]: … on cayman`. An HBM region
/// must lie inside the machine's HBM (its size named in the message, even when the region's
/// byte count passes 2^64).
pub fn fits(b: &Bound, mem: Memory) -> Result<(), String> {
    let t = &b.tensor;
    let past_2_64 = |start| {
        HostError::HbmSpan {
            start,
            size: Some(mem.hbm_bytes),
        }
        .to_string()
    };
    let checked = match t.check(mem.gen) {
        // The only HBM error of the generation check: the byte count overflows.
        Err(HostError::HbmSpan { start, .. }) => Err(past_2_64(start)),
        Ok((_, total)) if t.space == Space::Hbm => match t.byte_offset.checked_add(total) {
            Some(end) if end <= mem.hbm_bytes => Ok(()),
            Some(end) => Err(HostError::Hbm {
                start: t.byte_offset,
                end,
                size: mem.hbm_bytes,
            }
            .to_string()),
            None => Err(past_2_64(t.byte_offset)),
        },
        Ok(_) => Ok(()),
        // Already names the generation.
        Err(e @ HostError::NoSuchSpace { .. }) => Err(e.to_string()),
        Err(e) => Err(format!("{e} on {}", mem.gen)),
    };
    checked.map_err(|e| format!("region {b}: {e}"))
}

/// Integer arrays (and ml_dtypes' `<f1`, read as e5m2) carry bits that any dtype of the same
/// size may reinterpret.
fn is_bit_view(d: Dtype) -> bool {
    matches!(
        d,
        Dtype::UINT8
            | Dtype::INT8
            | Dtype::UINT16
            | Dtype::INT16
            | Dtype::UINT32
            | Dtype::INT32
            | Dtype::FP8_EXP5
    )
}

/// Stages a region of `m` as a `.npy` file in `style` into the run's set of files (put in
/// place when the run completes), read piece by piece straight into the file
/// ([`Machine::read_tensor_pieces`]), so that a region of any size is written holding one
/// piece in memory (issue 29 item 8); returns the header descr written.
pub fn write_region_output(
    path: &Path,
    bound: &Bound,
    m: &Machine,
    style: NpyStyle,
    files: &mut FileSet,
) -> Result<&'static str, String> {
    /// A piece the machine could not read (not reached: `plan` checked the region), or a
    /// write that failed.
    struct Piece(std::io::Error);
    impl From<HostError> for Piece {
        fn from(e: HostError) -> Piece {
            Piece(std::io::Error::other(e.to_string()))
        }
    }
    let t = &bound.tensor;
    let header = npy_header(t.dtype, &bound.shape, style).map_err(|e| e.to_string())?;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    files
        .stage_with(path, |out| {
            out.write_all(&header)?;
            m.read_tensor_pieces(t, |piece| out.write_all(piece).map_err(Piece))
                .map_err(|Piece(e)| e)
        })
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(crate::npy::descr_for(t.dtype, style).unwrap_or("?"))
}

/// Stages a region's bytes as a `.npy` file in `style` into the run's set of files (put in
/// place when the run completes); returns the header descr written.
pub fn write_output(
    path: &Path,
    bound: &Bound,
    data: Vec<u8>,
    style: NpyStyle,
    files: &mut FileSet,
) -> Result<&'static str, String> {
    let arr = NpyArray::new(bound.tensor.dtype, bound.shape.clone(), data)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let bytes = write_npy(&arr, style).map_err(|e| e.to_string())?;
    files
        .stage_with(path, |out| out.write_all(&bytes))
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(crate::npy::descr_for(arr.dtype, style).unwrap_or("?"))
}

/// The Python expression that loads an output file of `dtype` as the real type (either
/// style: numpy views `<u2`/`|u1` bits and `<V2`/`|V1` blobs the same way).
pub fn python_loader(file: &str, dtype: Dtype) -> String {
    let ml = match dtype {
        Dtype::BFLOAT16 => Some("bfloat16"),
        Dtype::FP8_EXP3 => Some("float8_e3m4"),
        Dtype::FP8_EXP4 => Some("float8_e4m3"),
        Dtype::FP8_EXP5 => Some("float8_e5m2"),
        _ => None,
    };
    match ml {
        None => format!("np.load('{file}')"),
        Some(t) => format!("np.load('{file}').view(ml_dtypes.{t})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::npy::{write_npy, NpyArray};

    fn tmp(name: &str, bytes: &[u8]) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("tpb-run-data-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    }

    fn arr(dtype: Dtype, shape: Vec<usize>) -> NpyArray {
        let n: usize = shape.iter().product::<usize>() * dtype.size().unwrap();
        NpyArray::new(dtype, shape, (0..n).map(|i| i as u8).collect()).unwrap()
    }

    #[test]
    fn hints_and_bit_views() {
        let bits = tmp(
            "u2.npy",
            &write_npy(&arr(Dtype::UINT16, vec![2, 2]), NpyStyle::BitView).unwrap(),
        );
        let r = RegionSpec::parse("sbuf[p0..2]:bf16").unwrap();
        let (b, data) = read_for_region(&bits, &r, None, Memory::default_of(Gen::Cayman)).unwrap();
        assert_eq!(b.tensor.dtype, Dtype::BFLOAT16);
        assert_eq!(data.len(), 8);
        let r = RegionSpec::parse("sbuf[p0..2]").unwrap();
        assert_eq!(
            read_for_region(&bits, &r, None, Memory::default_of(Gen::Cayman))
                .unwrap()
                .0
                .tensor
                .dtype,
            Dtype::UINT16
        );

        let blob = tmp(
            "v2.npy",
            &write_npy(&arr(Dtype::BFLOAT16, vec![2, 2]), NpyStyle::MlDtypes).unwrap(),
        );
        let e = read_for_region(&blob, &r, None, Memory::default_of(Gen::Cayman)).unwrap_err();
        assert!(
            e.contains("raw 2-byte blob") && e.contains("--dtype"),
            "{e}"
        );
        let (b, _) = read_for_region(
            &blob,
            &r,
            Some(Dtype::BFLOAT16),
            Memory::default_of(Gen::Cayman),
        )
        .unwrap();
        assert_eq!(b.tensor.dtype, Dtype::BFLOAT16);

        let f16 = tmp(
            "f2.npy",
            &write_npy(&arr(Dtype::FP16, vec![2, 2]), NpyStyle::BitView).unwrap(),
        );
        let r = RegionSpec::parse("sbuf[p0..2]:bf16").unwrap();
        let e = read_for_region(&f16, &r, None, Memory::default_of(Gen::Cayman)).unwrap_err();
        assert!(e.contains("holds fp16 but the region is bfloat16"), "{e}");

        let bad = tmp("bad.npy", b"not numpy");
        let e = read_for_region(&bad, &r, None, Memory::default_of(Gen::Cayman)).unwrap_err();
        assert!(e.ends_with("bad .npy magic (not a .npy file)"), "{e}");
    }
}
