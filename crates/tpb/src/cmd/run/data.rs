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

use crate::npy::{read_npy, write_npy_file, NpyArray, NpyError, NpyStyle};
use std::path::Path;
use tpb_isa::Dtype;
use tpb_sim::region::{BoundRegion as Bound, RegionSpec};

/// Reads `path` for `region`, with `default_dtype` (`--dtype`) used when the region names
/// none, and binds the region to the array. Errors are one line naming the file.
pub fn read_for_region(
    path: &Path,
    region: &RegionSpec,
    default_dtype: Option<Dtype>,
) -> Result<(Bound, Vec<u8>), String> {
    let name = path.display();
    let bytes = std::fs::read(path).map_err(|e| format!("{name}: {e}"))?;
    let want = region.dtype.or(default_dtype);
    let arr = match (read_npy(&bytes, None), want) {
        (Ok(arr), None) => arr,
        (Ok(arr), Some(w)) if arr.dtype == w => arr,
        (Ok(arr), Some(w)) if is_bit_view(arr.dtype) && arr.dtype.size() == w.size() => {
            NpyArray { dtype: w, ..arr }
        }
        (Ok(arr), Some(w)) => {
            return Err(format!(
                "{name}: the file holds {} but the region is {w} (tpb does not convert; \
                 save the array as {w}, or as its bits)",
                arr.dtype
            ))
        }
        (Err(NpyError::NeedsHint { .. }), Some(w)) => {
            read_npy(&bytes, Some(w)).map_err(|e| format!("{name}: {e}"))?
        }
        (Err(NpyError::NeedsHint { descr, size, .. }), None) => {
            return Err(format!(
                "{name}: descr '{descr}' is a raw {size}-byte blob with no element type; \
                 name it in the region (e.g. {}:bf16) or with --dtype",
                region.place()
            ))
        }
        (Err(e), _) => return Err(format!("{name}: {e}")),
    };
    if !tpb_sim::numerics::is_datapath_dtype(arr.dtype) {
        return Err(format!(
            "{name}: the file holds {}, which no region can hold (the datapath types are \
             int8..int32, uint8..uint32, fp16, bfloat16, fp32 and fp8)",
            arr.dtype
        ));
    }
    let bound = region
        .bind_to(arr.dtype, &arr.shape)
        .map_err(|e| format!("{name}: {e}"))?;
    Ok((bound, arr.data))
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

/// Writes a region's bytes as a `.npy` file in `style`; returns the header descr written.
pub fn write_output(
    path: &Path,
    bound: &Bound,
    data: Vec<u8>,
    style: NpyStyle,
) -> Result<&'static str, String> {
    let arr = NpyArray::new(bound.tensor.dtype, bound.shape.clone(), data)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    write_npy_file(path, &arr, style).map_err(|e| e.to_string())?;
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
    use crate::npy::write_npy;

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
        let (b, data) = read_for_region(&bits, &r, None).unwrap();
        assert_eq!(b.tensor.dtype, Dtype::BFLOAT16);
        assert_eq!(data.len(), 8);
        let r = RegionSpec::parse("sbuf[p0..2]").unwrap();
        assert_eq!(
            read_for_region(&bits, &r, None).unwrap().0.tensor.dtype,
            Dtype::UINT16
        );

        let blob = tmp(
            "v2.npy",
            &write_npy(&arr(Dtype::BFLOAT16, vec![2, 2]), NpyStyle::MlDtypes).unwrap(),
        );
        let e = read_for_region(&blob, &r, None).unwrap_err();
        assert!(
            e.contains("raw 2-byte blob") && e.contains("--dtype"),
            "{e}"
        );
        let (b, _) = read_for_region(&blob, &r, Some(Dtype::BFLOAT16)).unwrap();
        assert_eq!(b.tensor.dtype, Dtype::BFLOAT16);

        let f16 = tmp(
            "f2.npy",
            &write_npy(&arr(Dtype::FP16, vec![2, 2]), NpyStyle::BitView).unwrap(),
        );
        let r = RegionSpec::parse("sbuf[p0..2]:bf16").unwrap();
        let e = read_for_region(&f16, &r, None).unwrap_err();
        assert!(e.contains("holds fp16 but the region is bfloat16"), "{e}");

        let bad = tmp("bad.npy", b"not numpy");
        let e = read_for_region(&bad, &r, None).unwrap_err();
        assert!(e.ends_with("bad .npy magic (not a .npy file)"), "{e}");
    }
}
