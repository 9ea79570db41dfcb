//! Byte-map fidelity through the CLI (issue 29 items 21, 23, 24): `decode`, `decode --json`
//! and `explain` show each per-generation name and every sub-field of a grouped field.

use serde_json::Value;
use std::process::Command;
use tpb_isa::text::{asm, AsmOptions};
use tpb_isa::Gen;

fn tpb(args: &[&str]) -> (i32, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_tpb"))
        .args(args)
        .output()
        .expect("spawn tpb");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.is_empty(), "tpb {args:?}: {err}");
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8(o.stdout).expect("utf-8"),
    )
}

/// The hex of `text` assembled for `gen` (`asm` does not validate).
fn hex(gen: Gen, text: &str) -> String {
    let a = asm(text, &AsmOptions::new(gen)).unwrap_or_else(|e| panic!("{text}: {e}"));
    a.instructions()
        .flat_map(|s| s.inst.encode())
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn decode_json(gen: Gen, hex: &str) -> Value {
    let (code, out) = tpb(&["decode", "--json", "--gen", gen.name(), "--hex", hex]);
    assert_eq!(code, 0);
    serde_json::from_str(&out).expect("JSON")
}

/// The field named `name` of the first bundle.
fn field<'a>(doc: &'a Value, name: &str) -> &'a Value {
    doc["bundles"][0]["fields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == name)
        .unwrap_or_else(|| panic!("no field {name}"))
}

/// `(name, offset, size, raw, value)` of a field's parts.
fn parts(f: &Value) -> Vec<(String, u64, u64, String, String)> {
    f["parts"]
        .as_array()
        .unwrap_or_else(|| panic!("no parts: {f}"))
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap().to_string(),
                p["offset"].as_u64().unwrap(),
                p["size"].as_u64().unwrap(),
                p["raw"].as_str().unwrap().to_string(),
                p["value"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// Every part lies in its field's bytes and its `raw` is those bytes of the bundle.
fn parts_are_consistent(doc: &Value) {
    let b = &doc["bundles"][0];
    let hex = b["hex"].as_str().unwrap();
    for f in b["fields"].as_array().unwrap() {
        let (start, size) = (f["offset"].as_u64().unwrap(), f["size"].as_u64().unwrap());
        for (name, off, n, raw, value) in parts(f) {
            assert!(
                off >= start && off + n <= start + size && n > 0,
                "{name}: {off}+{n} outside {start}+{size}"
            );
            let (a, z) = (2 * off as usize, 2 * (off + n) as usize);
            assert_eq!(raw, hex[a..z], "{name}");
            assert!(!value.is_empty(), "{name}");
            assert!(name.starts_with(f["name"].as_str().unwrap()), "{name}");
        }
    }
}

const MATMUL: &str = "matmul src=sbuf[p0]+0x1000:[[1,16]] in=bf16 ctrl=[num_active_rows:8,\
                      num_active_cols:4,psum_accumulate_flags:3,row_grp:0xf,col_grp:0xf] \
                      dst=psum[p0]+0x0:[[1,16]]";

// isa-facts-pe-act-dma §1.3: the Matmul controls (bytes 34..48) are one grouped field whose
// sub-fields differ per generation; `decode --json` gives each with its bytes and value.
#[test]
fn decode_json_gives_matmul_ctrl_sub_fields() {
    let doc = decode_json(Gen::Cayman, &hex(Gen::Cayman, MATMUL));
    parts_are_consistent(&doc);
    let ctrl = field(&doc, "ctrl");
    let p = parts(ctrl);
    assert!(p.contains(&(
        "ctrl.num_active_rows".into(),
        38,
        1,
        "08".into(),
        "8".into()
    )));
    assert!(p.contains(&(
        "ctrl.psum_accumulate_flags".into(),
        43,
        1,
        "03".into(),
        "3".into()
    )));
    // §1.6: cayman requires out_dtype 0, read as fp32: not an "invalid" dtype.
    let out = p
        .iter()
        .find(|x| x.0 == "ctrl.out_dtype")
        .expect("out_dtype");
    assert_eq!((out.1, out.2, out.3.as_str()), (40, 1, "00"));
    assert!(!out.4.contains("invalid"), "{out:?}");
    assert!(out.4.starts_with('0') && out.4.contains("fp32"), "{out:?}");
    let text = ctrl["text"].as_str().unwrap();
    assert!(text.contains("out_dtype:0,"), "{text}");
    // The descriptors are grouped fields too.
    let src = parts(field(&doc, "src_mem_pattern"));
    assert!(src
        .iter()
        .any(|x| x.0 == "src_mem_pattern.start_addr" && x.1 == 16 && x.2 == 4));
    assert!(src
        .iter()
        .any(|x| x.0 == "src_mem_pattern.num_elem[0]" && x.1 == 26));
    // A plain one-value field has no parts.
    assert_eq!(field(&doc, "in_dtype")["parts"], serde_json::json!([]));
    // The text line does not call the 0 invalid either.
    let (_, line) = tpb(&[
        "decode",
        "--gen",
        "cayman",
        "--hex",
        &hex(Gen::Cayman, MATMUL),
    ]);
    assert!(!line.contains("out_dtype:invalid"), "{line}");
    assert!(line.contains("out_dtype:0,"), "{line}");
}

// isa-facts-pe-act-dma §3.4: DMAMEMCPY's src (bytes 16..36) and dst (40..60) are 20-byte
// groups (ADDR8, steps, counts); `decode --json` lists their sub-fields.
#[test]
fn decode_json_gives_dma_group_sub_fields() {
    let text = "dma_memcpy semaphore=5 sem_increment=1 src=hbm+0x1000:[[512,128],[0,1]] \
                src_elem_size=512 dst=sbuf[p0]+0x400:[[262144,128],[0,1]] dst_elem_size=512 \
                in_dtype=fp32 out_dtype=fp32";
    let doc = decode_json(Gen::Cayman, &hex(Gen::Cayman, text));
    parts_are_consistent(&doc);
    for name in ["src", "dst"] {
        let f = field(&doc, name);
        let p = parts(f);
        assert!(p.len() >= 3, "{name}: {p:?}");
        // The parts tile the group.
        let (start, size) = (f["offset"].as_u64().unwrap(), f["size"].as_u64().unwrap());
        let covered: u64 = p.iter().map(|x| x.2).sum();
        assert_eq!(covered, size, "{name}: {p:?}");
        assert_eq!(p[0].1, start, "{name}");
    }
}

// isa-facts-pe-act-dma §1.4: mariana S3_LW byte 12 is bg_xpose_mode; `explain` and JSON name
// it there, and keep it as a reserved byte on cayman.
#[test]
fn load_weights_bg_xpose_mode_is_named_on_mariana() {
    let lw = "load_weights src=sbuf[p0]+0x0:[[1,128]] in=bf16 front=[bg_xpose_mode:1] \
              ctrl=[num_active_rows:128,num_active_cols:128,row_grp:0xf,col_grp:0xf]";
    let h = hex(Gen::Mariana, lw);
    let doc = decode_json(Gen::Mariana, &h);
    parts_are_consistent(&doc);
    let p = parts(field(&doc, "front"));
    assert_eq!(
        p,
        [("front.bg_xpose_mode".into(), 12, 1, "01".into(), "1".into())]
    );
    let (_, out) = tpb(&["explain", "--gen", "mariana", "--hex", &h]);
    assert!(out.contains("front.bg_xpose_mode"), "{out}");
    let (_, line) = tpb(&["decode", "--gen", "mariana", "--hex", &h]);
    assert!(line.contains("front=[bg_xpose_mode:1]"), "{line}");
    let (_, line) = tpb(&["decode", "--gen", "cayman", "--hex", &h]);
    assert!(line.contains("front=[rsv12:0x01]"), "{line}");
    let doc = decode_json(Gen::Cayman, &h);
    let p = parts(field(&doc, "front"));
    assert_eq!(
        p,
        [("front.rsv12".into(), 12, 1, "01".into(), "0x01".into())]
    );
}
