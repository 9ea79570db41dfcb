//! `tpb run` with device memory: HBM regions in `.in` / `.out` / `.expect`, `--hbm-bytes`,
//! and DMA queues in the engine report (docs/cli-run.md "Device memory (HBM)",
//! docs/reference/dma.md).

#[path = "support/cli.rs"]
mod cli;
use cli::{scratch, tpb};
use tpb::npy::{read_npy_file, write_npy, NpyArray, NpyStyle};
use tpb_isa::Dtype;

const PROGRAM: &str = ".gen cayman
.in x.npy@hbm+0x100
.expect hbm+0x0:uint8:4 == [0, 0, 0, 0]
dma_memcpy semaphore=1 sem_increment=1 src=hbm+0x100:[[8,4],[0,1]] src_elem_size=8 dst=sbuf[p0]+0x0:[[262144,4],[0,1]] dst_elem_size=8 in_dtype=fp32 out_dtype=fp32
ts_arith src=sbuf[p0..4]+0x0:[[1,2]] in=fp32 out=fp32 op0=add imm0=1.0 dst=sbuf[p0..4]+0x40:[[1,2]] wait_mode=sem_ge_imm wait_idx=1 semaphore_value=1 update_mode=sem_inc_complete update_idx=2
dma_memcpy src=sbuf[p0]+0x40:[[262144,4],[0,1]] src_elem_size=8 dst=hbm+0x200:[[8,4],[0,1]] dst_elem_size=8 in_dtype=fp32 out_dtype=fp32 wait_mode=sem_ge_imm wait_idx=2 semaphore_value=1
.expect hbm+0x200:fp32:4x2 == [1, 2, 3, 4, 5, 6, 7, 8]
.out hbm+0x200:fp32:4x2@y.npy
";

fn setup(test: &str) -> std::path::PathBuf {
    let dir = scratch("cli_hbm", test);
    let xs: Vec<u8> = (0..8).flat_map(|i| (i as f32).to_le_bytes()).collect();
    let a = NpyArray {
        dtype: Dtype::FP32,
        shape: vec![4, 2],
        data: xs,
    };
    std::fs::write(dir.join("x.npy"), write_npy(&a, NpyStyle::BitView).unwrap()).unwrap();
    std::fs::write(dir.join("p.tpb"), PROGRAM).unwrap();
    dir
}

#[test]
fn hbm_regions_and_dma_queues_in_the_report() {
    let dir = setup("report");
    let out = tpb(&dir, &["run", "p.tpb"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("in       x.npy -> hbm+0x100:fp32:4x2"),
        "{text}"
    );
    assert!(text.contains("expect   2 passed"), "{text}");
    assert!(text.contains("races    none"), "{text}");
    assert!(text.contains("DMA.SP"), "{text}");
    let y = read_npy_file(&dir.join("out/y.npy"), None).unwrap();
    assert_eq!(y.shape, [4, 2]);
    let ys: Vec<f32> = y
        .data
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(ys, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]);
}

#[test]
fn hbm_bytes_bounds_regions() {
    let dir = setup("limit");
    let out = tpb(&dir, &["run", "p.tpb", "--hbm-bytes", "256"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("outside the 0x100-byte HBM"), "{err}");
    let out = tpb(&dir, &["run", "p.tpb", "--hbm-bytes", "0"]);
    assert_eq!(out.status.code(), Some(2));
}

// The shipped DMA pipeline example: HBM → SBUF (DMA.SP) → DVE → HBM (DMA.ACT), race-free,
// checking itself against numpy, with DMA queue rows in the SVG timeline.
#[test]
fn dma_pipeline_example_runs_race_free_with_its_timeline() {
    let dir = scratch("cli_hbm", "example");
    let example = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/engines/dma_pipeline.tpb")
        .canonicalize()
        .unwrap();
    let out = tpb(
        &dir,
        &["run", example.to_str().unwrap(), "--timeline", "dma.svg"],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("expect   1 passed") && text.contains("races    none"),
        "{text}"
    );
    let svg = std::fs::read_to_string(dir.join("dma.svg")).unwrap();
    assert!(svg.contains("DMA.SP") && svg.contains("DMA.ACT"));
}

fn f32s(a: &NpyArray) -> Vec<f32> {
    a.data
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

// Issue 18 item 7: the shipped DMA-in → matmul → exp → DMA-out pipeline across DMA.SP, PE, ACT
// and DMA.ACT, synchronised by semaphores, race-free, with its timeline. The example checks
// the PSUM results itself, bit for bit against NumPy in our documented order (`.expect`,
// assumption pe-summation-order: exact per our order, not the hardware's bits); here the exp
// output, which is approximate (assumption act-table-functions), is held within 1 ulp of
// NumPy's float64 exp rounded to fp32 (pe_exp.reference.npy, tools/gen_engine_examples.py).
#[test]
fn pe_act_pipeline_example_matches_numpy() {
    let dir = scratch("cli_hbm", "pe_act");
    let engines = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/engines")
        .canonicalize()
        .unwrap();
    let example = engines.join("pe_act_pipeline.tpb");
    let out = tpb(
        &dir,
        &["run", example.to_str().unwrap(), "--timeline", "pe.svg"],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("expect   2 passed") && text.contains("races    none"),
        "{text}"
    );
    assert!(text.contains("[exact-per-our-order]") && text.contains("[approximate]"));
    let svg = std::fs::read_to_string(dir.join("pe.svg")).unwrap();
    for track in ["DMA.SP #", "PE #", "ACT #", "DMA.ACT #"] {
        assert!(svg.contains(track), "{track}");
    }
    let got = f32s(&read_npy_file(&dir.join("out/pe_act_pipeline.npy"), None).unwrap());
    let want = f32s(&read_npy_file(&engines.join("pe_exp.reference.npy"), None).unwrap());
    assert_eq!(got.len(), 128 * 512);
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        let ulps = (g.to_bits() as i64 - w.to_bits() as i64).abs();
        assert!(ulps <= 1, "element {i}: {g} vs NumPy {w} ({ulps} ulp)");
    }
    // --strict-exact refuses both kinds of label (issue 18 item 4).
    let strict = tpb(&dir, &["run", example.to_str().unwrap(), "--strict-exact"]);
    assert_eq!(strict.status.code(), Some(1));
}

// Issue 29 item 5: an HBM region larger than the configured HBM is refused before anything
// runs, naming the real size; one whose byte count overflows 64 bits too (it was reported as
// "outside the 0x0-byte HBM"). A region past the HBM is an input error (docs/cli-run.md,
// "Device memory (HBM)").
#[test]
fn an_oversized_hbm_region_names_the_real_hbm_size() {
    let dir = scratch("cli_hbm", "oversized");
    for (region, hbm) in [
        // 2^61 × 4 fp32: 2^63 elements, whose byte count overflows 64 bits.
        ("hbm+0x0:fp32:2305843009213693952x4", None),
        // 2 TiB, past the default 1 GiB.
        ("hbm+0x0:fp32:128x4294967296", None),
        // 16 GiB in a 1 MiB HBM, as a flag.
        ("hbm+0x10:fp32:4294967296", Some("1048576")),
    ] {
        std::fs::write(dir.join("p.tpb"), format!(".out {region} @ a.npy\n")).unwrap();
        let mut args = vec!["run", "p.tpb"];
        if let Some(h) = hbm {
            args.extend(["--hbm-bytes", h]);
        }
        let out = tpb(&dir, &args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{region}: {err}");
        let size = match hbm {
            None => "0x40000000",
            Some(_) => "0x100000",
        };
        assert!(
            err.contains(&format!("outside the {size}-byte HBM")),
            "{region}: {err}"
        );
        assert!(
            out.stdout.is_empty(),
            "{region}: refused before the program runs: {}",
            String::from_utf8_lossy(&out.stdout)
        );
        assert!(!dir.join("out").exists());
    }
    // The same region fits a large enough HBM.
    std::fs::write(dir.join("p.tpb"), ".out hbm+0x10:fp32:4x2 @ a.npy\n").unwrap();
    let out = tpb(&dir, &["run", "p.tpb", "--hbm-bytes", "48"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = tpb(&dir, &["run", "p.tpb", "--hbm-bytes", "47"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("hbm bytes 0x10..0x30 are outside the 0x2f-byte HBM"));
}
