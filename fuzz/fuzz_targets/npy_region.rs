//! The untrusted-text and file parsers of `tpb run` never panic: `.npy` files (with and
//! without a dtype hint), region specs (parsed, bound and resolved on every generation) and
//! the binding syntax of every directive. The first input byte picks the parser. A `.npy`
//! read as a stream of unknown length (`read_header` then `read_data`, as `tpb run` reads
//! a pipe) agrees with the read of the whole bytes, and no array has more than 64
//! dimensions (numpy's limit).
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;
use tpb::cmd::run::bind::{parse, Paths};
use tpb::npy::{read_data, read_header, read_npy, MAX_DIMS};
use tpb_isa::{Dtype, Gen};
use tpb_sim::region::RegionSpec;

fuzz_target!(|data: &[u8]| {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    match which % 3 {
        0 => {
            for hint in [
                None,
                Some(Dtype::FP32),
                Some(Dtype::BFLOAT16),
                Some(Dtype::FP8_EXP4),
            ] {
                let whole = read_npy(rest, hint);
                if let Ok(a) = &whole {
                    let size = a.dtype.size().unwrap_or(0);
                    let count: usize = a.shape.iter().product();
                    assert_eq!(a.data.len(), count * size, "{:?}", a.shape);
                    assert!(a.shape.len() <= MAX_DIMS);
                }
                let mut stream = rest;
                let streamed =
                    read_header(&mut stream).and_then(|h| read_data(&mut stream, &h, hint, None));
                match (&whole, &streamed) {
                    (Ok(a), Ok(b)) => assert!(a == b, "the stream reads another array"),
                    (Err(_), Err(_)) => {}
                    _ => panic!("whole: {whole:?}, streamed: {streamed:?}"),
                }
            }
        }
        1 => {
            let Ok(text) = std::str::from_utf8(rest) else {
                return;
            };
            if let Ok(spec) = RegionSpec::parse(text) {
                let _ = spec.to_string();
                if let Ok(bound) = spec.bind() {
                    for gen in Gen::ALL {
                        let _ = bound.resolve(gen);
                    }
                }
            }
        }
        _ => {
            let Ok(text) = std::str::from_utf8(rest) else {
                return;
            };
            let paths = Paths {
                inputs: Path::new("in"),
                outputs: Path::new("out"),
            };
            for kind in ["in", "out", "reg", "expect", "show", "dtype"] {
                let _ = parse(kind, text, paths);
            }
        }
    }
});
