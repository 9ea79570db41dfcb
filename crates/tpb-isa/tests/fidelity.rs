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

// ---- item 23: enumeration names follow the generation ----------------------------------------

/// A TensorScalarArith with `op0` and the input dtype given as text.
fn ts_arith(op0: &str, in_dtype: &str) -> String {
    format!(
        "ts_arith src=sbuf[p0..128]+0x0:[[1,512]] in={in_dtype} out=fp32 op0={op0} imm0=0.5 \
         dst=sbuf[p0..128]+0x1000:[[1,512]]"
    )
}

/// The text of the body field `name` on `gen` (what decode, explain and JSON print).
fn field_text(inst: &Instruction, gen: Gen, name: &str) -> String {
    let (_, f) = inst
        .fields()
        .into_iter()
        .find(|(m, _)| m.name == name)
        .unwrap_or_else(|| panic!("no field {name}"));
    f.text(gen)
}

// isa-facts §5.1, §11: ALU_OP 0x24 SYMMETRIC_CLAMP exists only from maverick; isa-facts §4.1,
// §11: DTYPE 0x10 FP4_EXP2 only from mariana. A generation whose header does not define a
// value prints it as a number (docs/cli-isa.md: "Enumeration names … follow the generation"),
// accepts its name only where it is defined, and the bytes round-trip everywhere.
#[test]
fn enumeration_names_follow_the_generation() {
    let b = one(Gen::Maverick, &ts_arith("symmetric_clamp", "fp4_exp2")).encode();
    for gen in Gen::ALL {
        let i = Instruction::decode(&b, gen);
        let text = tpb_isa::text::disasm(&i, gen);
        let plain = tpb_isa::text::disasm_plain(&i, gen);
        assert_eq!(text, plain, "{gen}");
        let (op, dtype) = (field_text(&i, gen, "op0"), field_text(&i, gen, "in_dtype"));
        match gen {
            Gen::Sunda | Gen::Cayman => {
                assert_eq!((op.as_str(), dtype.as_str()), ("0x24", "0x10"), "{gen}");
                assert!(
                    text.contains("op0=0x24") && text.contains("in_dtype=0x10"),
                    "{text}"
                );
            }
            Gen::Mariana => {
                assert_eq!((op.as_str(), dtype.as_str()), ("0x24", "fp4_exp2"));
            }
            _ => {
                assert_eq!(
                    (op.as_str(), dtype.as_str()),
                    ("symmetric_clamp", "fp4_exp2")
                );
                assert!(text.contains("op0=symmetric_clamp"), "{text}");
            }
        }
        assert!(
            !(gen != Gen::Maverick && text.contains("symmetric_clamp")),
            "{gen}: {text}"
        );
        // asm(disasm(b)) == b on every generation.
        assert_eq!(one(gen, &text).encode(), b, "{gen}: {text}");
    }
    // A name is read only on a generation that defines it; the number always.
    for gen in [Gen::Sunda, Gen::Cayman, Gen::Mariana] {
        let e = asm(&ts_arith("symmetric_clamp", "fp32"), &AsmOptions::new(gen))
            .expect_err("symmetric_clamp is maverick's")
            .to_string();
        assert!(e.contains("maverick") && e.contains("0x24"), "{gen}: {e}");
        one(gen, &ts_arith("0x24", "fp32"));
    }
    for gen in [Gen::Sunda, Gen::Cayman] {
        let e = asm(&ts_arith("mult", "fp4_exp2"), &AsmOptions::new(gen))
            .expect_err("fp4_exp2 is mariana's")
            .to_string();
        assert!(e.contains("mariana") && e.contains("0x10"), "{gen}: {e}");
    }
    one(Gen::Mariana, &ts_arith("mult", "fp4_exp2"));
    // Validation reads the same declaration: 0x24 is not an ALU op of cayman, and the report
    // does not call it by a name cayman does not have.
    let i = one(Gen::Cayman, &ts_arith("0x24", "fp32"));
    let r = validate(&i, Gen::Cayman);
    let f = r
        .failures()
        .find(|f| f.rule.name == "is_valid_aluop")
        .expect("0x24 is refused on cayman");
    assert!(f.value.starts_with("0x24"), "{}", f.value);
    let i = one(Gen::Maverick, &ts_arith("symmetric_clamp", "fp32"));
    assert!(validate(&i, Gen::Maverick)
        .failures()
        .all(|f| f.rule.name != "is_valid_aluop"));
}

// ---- item 22: the other PE opcodes have names ------------------------------------------------

/// The PE opcodes beside LoadWeights/Matmul (isa-facts-pe-act-dma §0.1, §1.1 from
/// `common.h:158-167,310`; generations from §1.1 "Struct presence" and the firmware lists):
/// value, mnemonic, struct, the first generation that has it.
const OTHER_PE: [(u8, &str, &str, Gen); 8] = [
    (0x03, "pe_reg_write", "not public", Gen::Cayman),
    (0x06, "load_tags", "S3_LT", Gen::Cayman),
    (0x07, "matmul_sparse", "S4D3_MM", Gen::Cayman),
    (0x08, "pe_manage_seed", "S2S1D2_PE_SEED", Gen::Mariana),
    (0x09, "load_weights_mx", "SMX1_LW", Gen::Mariana),
    (0x0A, "matmul_mx", "SMX1D3_MM", Gen::Mariana),
    (0xE4, "conv_lut_load", "S2_CONVLUT", Gen::Cayman),
    // 0x01/0x02 stay LoadWeights/Matmul; this row checks the table keeps them.
    (0x02, "matmul", "S3D3_MM", Gen::Sunda),
];

// §0.1 / §1.1: each of these opcodes decodes by name on the generations that have it, losslessly
// (any body bytes round-trip through the text), and as an opaque bundle before them.
#[test]
fn other_pe_opcodes_have_names() {
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    for (value, mnemonic, header_struct, first) in OTHER_PE {
        let mut b = [0u8; 64];
        for x in b.iter_mut() {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            *x = seed as u8;
        }
        b[0] = value;
        for gen in Gen::ALL {
            let i = Instruction::decode(&b, gen);
            let text = tpb_isa::text::disasm(&i, gen);
            assert_eq!(one(gen, &text).encode(), b, "{gen}: {text}");
            match i.info(gen) {
                Some(r) if gen >= first => {
                    assert_eq!(r.mnemonic, mnemonic);
                    assert_eq!(r.kind.header_name(), header_struct);
                    assert_eq!(r.engine, tpb_isa::opcode::Engine::Pe);
                    assert!(text.starts_with(mnemonic), "{gen}: {text}");
                }
                None if gen < first => assert!(text.starts_with(".bundle"), "{gen}: {text}"),
                other => panic!("{value:#04x} on {gen}: {:?}", other.map(|r| r.mnemonic)),
            }
        }
    }
}

fn pe_manage_seed(rows: u8, cols: u8) -> String {
    format!(
        "pe_manage_seed src_seed=sbuf[p0]+0x0:[[1,2],[512,8]] identity=sbuf[p0]+0x100:[[1,16]] \
         identity_dtype=fp32 mode=save_seed num_active_rows={rows} num_active_cols={cols} \
         dst_seed=psum[p0]+0x0:[[1,2],[512,8]]"
    )
}

// §1.10.3: PE_MANAGE_SEED's quoted validator: `num_active_rows = 16`, `num_active_cols = 128`,
// valid only on v4 (`nc == V4`, though the v5 header has the struct).
#[test]
fn pe_manage_seed_validator() {
    let ok = one(Gen::Mariana, &pe_manage_seed(16, 128));
    assert!(
        failing(&ok, Gen::Mariana).is_empty(),
        "{}",
        failures_text(&ok, Gen::Mariana)
    );
    let bad = one(Gen::Mariana, &pe_manage_seed(8, 128));
    assert_eq!(failing(&bad, Gen::Mariana), ["pe_seed_shape"]);
    let bad = one(Gen::Mariana, &pe_manage_seed(16, 64));
    assert_eq!(failing(&bad, Gen::Mariana), ["pe_seed_shape"]);
    let v5 = Instruction::decode(&ok.encode(), Gen::Maverick);
    assert_eq!(failing(&v5, Gen::Maverick), ["pe_seed_nc_v4"]);
    // The run is refused (the PRNG is not public), which validate reports as a lint.
    let lints: Vec<_> = validate(&ok, Gen::Mariana)
        .lints()
        .map(|f| f.rule.name)
        .collect();
    assert!(lints.contains(&"not_simulated"), "{lints:?}");
}
