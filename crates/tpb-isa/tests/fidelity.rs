//! Byte-map fidelity (issue 29 items 18–24): each case is built from the fact-sheet section it
//! cites, and each clause has a passing and a failing case.

use tpb_isa::text::{asm, AsmOptions};
use tpb_isa::validate::validate;
use tpb_isa::{Gen, Instruction};

/// The one instruction of `text`, assembled for `gen`.
fn one(gen: Gen, text: &str) -> Instruction {
    let a = asm(text, &AsmOptions::new(gen)).unwrap_or_else(|e| panic!("{text}: {e}"));
    let mut it = a.instructions();
    let s = it.next().expect("one instruction");
    assert!(it.next().is_none(), "{text}: more than one instruction");
    s.inst
}

/// The names of the failing (non-lint) rules of `inst` on `gen`.
fn failing(inst: &Instruction, gen: Gen) -> Vec<&'static str> {
    validate(inst, gen)
        .failures()
        .map(|f| f.rule.name)
        .collect()
}

/// The failing rules' messages, for assertion output.
fn failures_text(inst: &Instruction, gen: Gen) -> String {
    let r = validate(inst, gen);
    r.failures()
        .map(|f| f.to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

// ---- item 18: a v4 Matmul may write bf16 to PSUM -------------------------------------------

fn matmul(out_dtype: &str, dst: &str) -> String {
    format!(
        "matmul src=sbuf[p0]+0x1000:[[1,16]] in=bf16 ctrl=[num_active_rows:8,\
         num_active_cols:4,out_dtype:{out_dtype},psum_accumulate_flags:3,row_grp:0xf,\
         col_grp:0xf] dst={dst}:[[1,16]]"
    )
}

// isa-facts-pe-act-dma §1.6: `has_valid_mm_out_dtype` allows {0, FP32, BF16} from v4 (the
// fp32 result is rounded to bf16 as it is written), 0 only on v2/v3. The generic
// `tensor_start_addr_valid` clause "a PSUM write needs a 4-byte dtype" (isa-facts §2.2) must
// not overrule it: the generation's out-dtype rule decides.
#[test]
fn v4_matmul_writes_bf16_to_psum() {
    // Maverick has no PSUM window (isa-facts §2.2): mariana is the generation to check.
    let gen = Gen::Mariana;
    let i = one(gen, &matmul("bf16", "psum[p0]+0x0"));
    assert!(failing(&i, gen).is_empty(), "{}", failures_text(&i, gen));
    let i = one(gen, &matmul("fp32", "psum[p0]+0x0"));
    assert!(failing(&i, gen).is_empty(), "{}", failures_text(&i, gen));
    // A bf16 element is 2 bytes: 2-byte alignment still applies (addr_aligned_dtype).
    let i = one(gen, &matmul("bf16", "psum[p0]+0x2"));
    assert!(failing(&i, gen).is_empty(), "{}", failures_text(&i, gen));
    let i = one(gen, &matmul("bf16", "psum[p0]+0x1"));
    assert_eq!(failing(&i, gen), ["addr_aligned_dtype"]);
    // Any other out_dtype is refused by the out-dtype rule alone.
    let i = one(gen, &matmul("fp16", "psum[p0]+0x0"));
    assert_eq!(failing(&i, gen), ["has_valid_mm_out_dtype"]);
    // On cayman bf16 is not an out_dtype: the out-dtype rule names it, not the PSUM rule.
    let i = one(Gen::Cayman, &matmul("bf16", "psum[p0]+0x0"));
    assert_eq!(failing(&i, Gen::Cayman), ["has_valid_mm_out_dtype"]);
}

// ---- item 19: an Activate bias read through a pointer is aligned to its own dtype -----------

fn activate(bias_dtype: &str, bias: &str) -> String {
    format!(
        "activate src=sbuf[p0..8]+0x0:[[1,16]] in_bias_dtype=fp32->{bias_dtype} out=fp32 \
         activation_func=exp scale_value=1.0 bias_src_n=pointer bias={bias} \
         dst=sbuf[p0..8]+0x800:[[1,16]]"
    )
}

// isa-facts-pe-act-dma §2.2: "a pointer-sourced bias is aligned to its own dtype (dtype_hi):
// 2 bytes for bf16/fp16"; a pointer-sourced scale or imm is fp32, 4-byte aligned.
#[test]
fn activate_bias_pointer_alignment_follows_the_bias_dtype() {
    let gen = Gen::Cayman;
    for (dtype, addr, ok) in [
        ("bf16", "0x1002", true),
        ("fp16", "0x1002", true),
        ("bf16", "0x1001", false),
        ("fp32", "0x1004", true),
        ("fp32", "0x1002", false),
    ] {
        let i = one(gen, &activate(dtype, addr));
        let f = failing(&i, gen);
        if ok {
            assert!(
                f.is_empty(),
                "{dtype} at {addr}: {}",
                failures_text(&i, gen)
            );
        } else {
            assert_eq!(f, ["ts_ptr_imm_chk"], "{dtype} at {addr}");
        }
    }
}

// isa-facts-pe-act-dma §2.4: ActivateQuantize's bias_addr reads the bias dtype (fp32, bf16 or
// fp16), so it is aligned the same way.
#[test]
fn activate_quantize_bias_alignment_follows_the_bias_dtype() {
    let gen = Gen::Cayman;
    let text = |dtype: &str, addr: &str| {
        format!(
            "activate_quantize src=sbuf[p0..8]+0x0:[[1,16]] in_bias_dtype=fp32->{dtype} \
             out=uint8 activation_func=relu quant_scale_value=16.0 dequant_scale_value=1.0 \
             bias_addr={addr} dst=sbuf[p0..8]+0x800:[[1,16]]"
        )
    };
    let i = one(gen, &text("bf16", "0x1002"));
    assert!(failing(&i, gen).is_empty(), "{}", failures_text(&i, gen));
    let i = one(gen, &text("fp32", "0x1002"));
    assert_eq!(failing(&i, gen), ["ts_ptr_imm_chk"]);
}

// ---- item 20: byte 1 of the 0xDA record is `flags` ------------------------------------------

// isa-facts-pe-act-dma §3.6: PSEUDO_DMA_EXT_STRUCT byte 1 is `flags`, not the header's
// inst_word_len, so any value is the record's own; the tile-shape clause still applies.
#[test]
fn pseudo_extension_byte1_is_flags() {
    for gen in Gen::ALL {
        for flags in [0x00, 0x10, 0x37, 0xFF] {
            let i = one(
                gen,
                &format!(
                    "pseudo_extension tile_src_rows=16 tile_src_cols=128 inst_word_len={flags}"
                ),
            );
            assert_eq!(i.encode()[1], flags);
            assert!(
                failing(&i, gen).is_empty(),
                "{gen} flags {flags:#x}: {}",
                failures_text(&i, gen)
            );
        }
        let i = one(gen, "pseudo_extension tile_src_rows=3 inst_word_len=0");
        assert_eq!(failing(&i, gen), ["pseudo_ext_tile_shape"]);
    }
    // Every other struct keeps the header rule.
    let i = one(Gen::Cayman, "pseudo_dma_direct2d inst_word_len=0");
    assert!(failing(&i, Gen::Cayman).contains(&"has_valid_neuron_header"));
}

// ---- item 21: mariana's LoadWeights byte 12 is `bg_xpose_mode` -------------------------------

/// A LoadWeights bundle (128 bf16 rows × 128 columns) with byte 12 set to `b12`.
fn load_weights_bytes(gen: Gen, b12: u8) -> [u8; 64] {
    let ctrl = match gen {
        Gen::Maverick => "[num_active_rows:128,num_active_cols:128]",
        _ => "[num_active_rows:128,num_active_cols:128,row_grp:0xf,col_grp:0xf]",
    };
    let i = one(
        gen,
        &format!("load_weights src=sbuf[p0]+0x0:[[1,128]] in=bf16 ctrl={ctrl}"),
    );
    let mut b = i.encode();
    b[12] = b12;
    b
}

/// The sub-parts of the body field that covers byte `offset` (name suffix, absolute offset,
/// size, value).
fn parts_at(inst: &Instruction, gen: Gen, offset: usize) -> (String, Vec<(String, usize, String)>) {
    let (meta, f) = inst
        .fields()
        .into_iter()
        .find(|(m, _)| m.range().contains(&offset))
        .expect("a field covers every byte");
    let parts = f
        .sub_parts(gen)
        .into_iter()
        .map(|(suffix, off, _, value)| (suffix, meta.offset + off, value))
        .collect();
    (meta.name.to_string(), parts)
}

// isa-facts-pe-act-dma §1.4 (and §0.2 decision 3): on mariana S3_LW byte 12 is `bg_xpose_mode`
// (then reserved0[3]); on sunda, cayman and maverick bytes 12..16 are reserved0[4]. Decode,
// disasm and the field parts (explain, JSON) name it on mariana only; the bytes round-trip
// on every generation.
#[test]
fn mariana_load_weights_byte12_is_bg_xpose_mode() {
    let b = load_weights_bytes(Gen::Mariana, 1);
    let i = Instruction::decode(&b, Gen::Mariana);
    let text = tpb_isa::text::disasm(&i, Gen::Mariana);
    assert!(text.contains("[bg_xpose_mode:1]"), "{text}");
    let (_, parts) = parts_at(&i, Gen::Mariana, 12);
    assert!(
        parts.contains(&(".bg_xpose_mode".into(), 12, "1".into())),
        "{parts:?}"
    );
    assert!(
        failing(&i, Gen::Mariana).is_empty(),
        "{}",
        failures_text(&i, Gen::Mariana)
    );
    // BG_XPOSE_MODE values other than 0/1 are not given (§8 item 3, ASSUMED).
    let i2 = Instruction::decode(&load_weights_bytes(Gen::Mariana, 2), Gen::Mariana);
    assert_eq!(failing(&i2, Gen::Mariana), ["pe_transpose_mode"]);
    for gen in [Gen::Sunda, Gen::Cayman, Gen::Maverick] {
        let b = load_weights_bytes(gen, 1);
        let i = Instruction::decode(&b, gen);
        let text = tpb_isa::text::disasm(&i, gen);
        assert!(!text.contains("bg_xpose_mode"), "{gen}: {text}");
        assert!(text.contains("rsv12:0x01"), "{gen}: {text}");
        let (_, parts) = parts_at(&i, gen, 12);
        assert!(
            parts.iter().all(|(n, _, _)| !n.contains("bg_xpose")),
            "{gen}: {parts:?}"
        );
        assert_eq!(failing(&i, gen), ["s3d3_mm_reserved_zero"], "{gen}");
        let back = one(gen, &text);
        assert_eq!(back.encode(), b, "{gen}: {text}");
    }
    let back = one(Gen::Mariana, &text);
    assert_eq!(back.encode(), b);
}
