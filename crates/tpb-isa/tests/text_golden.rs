//! Golden tests for the text syntax: hand-written lines → exact bytes, exact canonical
//! text, and exact error messages (line, column, expected values).

use tpb_isa::text::{asm, asm_line, disasm, disasm_program, AsmOptions, Item};
use tpb_isa::wire::field::unhex;
use tpb_isa::{Gen, Instruction, Opcode};

fn bytes(hex: &str) -> [u8; 64] {
    unhex(hex).unwrap().try_into().unwrap()
}

fn errors(src: &str, gen: Gen) -> Vec<String> {
    asm(src, &AsmOptions::new(gen))
        .unwrap_err()
        .iter()
        .map(|e| e.to_string())
        .collect()
}

/// seed 000 §4: a PtrMultiArith over a [W=8, 4, 4, 4] fp32 block, written to PSUM as bf16.
#[test]
fn ptr_multi_arith_line_gives_exact_bytes() {
    let line = "ptr_multi_arith src=sbuf[p0..128]+0x100:[[1,4],[4,4],[16,4],[64,8]] in=fp32 \
                out=bf16 op=mult op_dim=xyz reverse=both dst=psum[p0..128]+0x0:[[1,4],[4,4],[16,4],[64,8]]";
    let want = bytes(concat!(
        "4f100000 00000000 00000000", // header, events
        "00010000",                   // src ADDR4: sbuf partition 0 + 0x100
        "0100 0400 1000 4000",        // src steps 1, 4, 16, 64
        "0400 0400 0400 0800",        // src nums 4, 4, 4, 8 (W = 8)
        "0a 06 80 00",                // fp32, bf16, 128 channels, reserved0
        "06 04 03 0000000000",        // mult, XYZ, Both, reserved1
        "00000002",                   // dst ADDR4: PSUM base
        "0100 0400 1000 4000",
        "0400 0400 0400 0800",
    ));
    for gen in [Gen::Sunda, Gen::Cayman, Gen::Mariana] {
        let inst = asm_line(line, gen).unwrap();
        assert_eq!(inst.encode(), want, "{gen}");
        assert_eq!(
            disasm(&inst, gen),
            "ptr_multi_arith src_mem_pattern=sbuf[p0..128]+0x100:[[1,4],[4,4],[16,4],[64,8]] \
             in_dtype=fp32 out_dtype=bfloat16 op=mult op_dim=xyz reverse_operands=both \
             dst_mem_pattern=psum[p0..128]+0x0:[[1,4],[4,4],[16,4],[64,8]]"
        );
    }
}

/// seed 002 §8 NOTE / nki-library: the causal mask is pattern [[-1, F]], channel_multiplier 1,
/// cmp GE; the fp32 fill comes from a register.
#[test]
fn affine_select_causal_mask_gives_exact_bytes() {
    let line = "affine_select channels=128 dtypes=fp32->bf16 cmp=ge fill_reg=7 \
                pattern=0:[[-1,512]] channel_multiplier=1 \
                src=sbuf[p0..128]+0x0:[[1,512]] dst=sbuf[p0..128]+0x800:[[1,512]]";
    let want = bytes(concat!(
        "92100000 00000000 00000000",
        "80 6a 01 07",         // 128 channels, fp32 (lo) -> bf16 (hi), GE, fill reg 7
        "00000000",            // mask base 0
        "ffff 0100 0100 0100", // mask steps -1, 1, 1, 1
        "0002 0100 0100 0100", // mask nums 512, 1, 1, 1
        "00000000 0100 0100 0002 0100",
        "00080000 0100 0100 0002 0100",
        "01000000", // channel_multiplier 1
    ));
    let inst = asm_line(line, Gen::Cayman).unwrap();
    assert_eq!(inst.encode(), want);
    assert_eq!(
        disasm(&inst, Gen::Cayman),
        "affine_select in_out_dtype=fp32->bfloat16 fill_mode=ge fill_reg=7 \
         mask_pattern=0:[[-1,512],[1,1],[1,1],[1,1]] src_mem_pattern=sbuf[p0..128]+0x0:[[1,512],[1,1]] \
         dst_mem_pattern=sbuf[p0..128]+0x800:[[1,512],[1,1]] channel_multiplier=1"
    );
}

#[test]
fn tensor_scalar_prints_fp32_immediates_and_events() {
    let line = "TS_ARITH src=sbuf[p32..64]+0x40:[[1,32]] in=fp32 out=bf16 op0=mult imm0=-2.5 \
                op1=add imm1=0x3f800000 dst=sbuf[p32..64]+0x100:[[1,32]] \
                wait_mode=sem_ge_imm wait_idx=3 semaphore_value=1 update_mode=sem_inc_complete update_idx=4";
    let inst = asm_line(line, Gen::Cayman).unwrap();
    assert_eq!(
        disasm(&inst, Gen::Cayman),
        "ts_arith src_mem_pattern=sbuf[p32..64]+0x40:[[1,32],[1,1],[1,1]] in_dtype=fp32 \
         out_dtype=bfloat16 op0=mult op1=add imm0=-2.5 imm1=1.0 \
         dst_mem_pattern=sbuf[p32..64]+0x100:[[1,32],[1,1],[1,1]] wait_mode=sem_ge_imm \
         wait_idx=3 update_mode=sem_inc_complete update_idx=4 semaphore_value=0x1"
    );
    // Bitvec immediates are integers: printed as hex bits.
    let bv = asm_line("ts_bitvec channels=1 imm0=0xff op0=and", Gen::Cayman).unwrap();
    assert!(disasm(&bv, Gen::Cayman).contains(" imm0=0xff "));
}

#[test]
fn raw_register_and_out_of_spec_operands_stay_expressible() {
    // An indirect-marker address (its second address, the word at +4, printed after `|`:
    // seed 001), a register address, and a range past partition 128.
    let line = "iota src=-5:[[2,8]] dst=0x20000400:[[1,8]] channels=200 inst_word_len=0 \
                debug_cmd=notify debug_hint=9 reserved1=ff";
    let inst = asm_line(line, Gen::Cayman).unwrap();
    let text = disasm(&inst, Gen::Cayman);
    assert_eq!(
        text,
        "iota src_data_pattern=-5:[[2,8],[1,1],[1,1],[1,1]] out_dtype=invalid \
         num_active_channels=200 reserved1=ff dst_mem_pattern=0x20000400|sbuf[p0]+0x10001:[[_,8],[_,1],[1,1],[1,1]] \
         inst_word_len=0 debug_cmd=notify debug_hint=9"
    );
    let e = asm_line(&text, Gen::Cayman).unwrap();
    assert_eq!(e, inst);

    let r = asm_line("imm_ld_arith src=reg[5]:[[1,8]] channels=4", Gen::Sunda).unwrap();
    assert!(disasm(&r, Gen::Sunda).contains("src_mem_pattern=reg[5]:[[1,8],[1,1]]"));

    let wide = asm_line("iota dst=sbuf[p100..300]+0x10:[[1,1]]", Gen::Cayman).unwrap();
    assert_eq!(wide.encode()[34], 200);
    assert!(disasm(&wide, Gen::Cayman).contains("dst_mem_pattern=sbuf[p100..300]+0x10:"));
}

#[test]
fn single_partition_operands_print_channels_as_a_field_only_without_addresses() {
    // With an SBUF operand, the count moves into the range; with none, it is a field.
    let a = asm_line(
        "ts_select src=sbuf[p3]+0x0:[[1,2]] channels=5 dtype=fp32 dst=reg[1]:[[1,2]]",
        Gen::Cayman,
    )
    .unwrap();
    assert!(disasm(&a, Gen::Cayman).contains("src0_mem_pattern=sbuf[p3..8]+0x0:"));
    let b = asm_line(
        "ts_select src=reg[2]:[[1,2]] channels=5 dtype=fp32 dst=reg[1]:[[1,2]]",
        Gen::Cayman,
    )
    .unwrap();
    assert!(disasm(&b, Gen::Cayman).contains(" num_active_channels=5 "));
}

#[test]
fn mnemonic_spellings_are_equivalent() {
    let canonical = asm_line("ptr_multi_arith channels=2", Gen::Cayman).unwrap();
    for spelling in [
        "PTR_MULTI_ARITH channels=2",
        "TensorScalarPtrMultiArith channels=2",
        "tensor_scalar_ptr_multi_arith CHANNELS=2",
        "0x4f num_active_channels=2",
        "79 channels = 2 # decimal opcode byte",
    ] {
        assert_eq!(
            asm_line(spelling, Gen::Cayman).unwrap(),
            canonical,
            "{spelling}"
        );
    }
}

#[test]
fn unmodelled_opcodes_use_bundle_and_numeric_mnemonics() {
    let b = bytes(&format!("e3100000{}", "00".repeat(60)));
    let inst = Instruction::decode(&b, Gen::Cayman);
    let text = disasm(&inst, Gen::Cayman);
    assert_eq!(
        text,
        format!(
            ".bundle e3100000{}  # QuantizeMx (not modelled)",
            " 00000000".repeat(15)
        )
    );
    assert_eq!(asm_line(&text, Gen::Cayman).unwrap(), inst);
    // The same bundle through the numeric mnemonic: header fields and the raw body by name.
    let n = asm_line("0xe3", Gen::Cayman).unwrap();
    assert_eq!(n.encode(), b);
    let raw = asm_line(
        &format!("0xe3 raw={} wait_idx=2", "ab".repeat(52)),
        Gen::Cayman,
    )
    .unwrap()
    .encode();
    assert_eq!((raw[5], raw[12], raw[63]), (2, 0xab, 0xab));
}

/// decisions §1.6: 0x87 has a struct only on sunda; `.gen` switches the decoding.
#[test]
fn gen_directive_changes_the_struct_of_dual_opcodes() {
    let src = "ptr_multi_dual_arith src=sbuf[p0..128]+0x0:[[1,4]]\n";
    let e = errors(src, Gen::Cayman);
    assert_eq!(e.len(), 1);
    assert!(
        e[0].starts_with("line 1, col 22: unknown field `src`: ptr_multi_dual_arith (0x87) is defined only on sunda"),
        "{}",
        e[0]
    );
    let a = asm(&format!(".gen sunda\n{src}"), &AsmOptions::new(Gen::Cayman)).unwrap();
    assert_eq!((a.initial_gen, a.final_gen), (Gen::Cayman, Gen::Sunda));
    let si = a.instructions().next().unwrap();
    assert_eq!((si.gen, si.line), (Gen::Sunda, 2));
    // The sunda instruction shown for cayman is opaque there: a `.bundle` naming why.
    let text = disasm(&si.inst, Gen::Cayman);
    assert!(text.starts_with(".bundle 87100000"), "{text}");
    assert!(text.ends_with("# TensorScalarPtrMultiDualArith: defined only on sunda"));
    assert_eq!(
        asm_line(&text, Gen::Cayman).unwrap().encode(),
        si.inst.encode()
    );
}

#[test]
fn programs_start_with_gen_and_keep_comments_blank_lines_and_crlf_out() {
    let src = "; a program\r\n\r\n.gen mariana  # Trn3\r\niota channels=1 ; trailing\r\n   \r\n.GEN v2\r\n0x30\r\n";
    let a = asm(src, &AsmOptions::default()).unwrap();
    let lines: Vec<usize> = a.instructions().map(|s| s.line).collect();
    assert_eq!(lines, [4, 7]);
    assert_eq!(a.final_gen, Gen::Sunda);
    assert!(matches!(
        a.items[0],
        Item::Gen {
            line: 3,
            gen: Gen::Mariana
        }
    ));
    assert_eq!(a.instructions().next().unwrap().source, "iota channels=1");
    let p = disasm_program(&a.insts(), Gen::Mariana);
    assert!(p.starts_with(".gen mariana\niota "), "{p}");
    assert_eq!(p.lines().count(), 3);
}

#[test]
fn caller_directives_pass_through_and_others_are_errors() {
    let src = "iota channels=1\n.in  sbuf[p0..128]+0x0 fp32 x.npy # input\n.Expect a\n.out y\n";
    let opts = AsmOptions::new(Gen::Cayman).allow_directives(&[".in", "expect"]);
    let e = asm(src, &opts).unwrap_err();
    assert_eq!(
        e.to_string(),
        "line 4, col 1: unknown directive `.out`; expected one of .gen, .bundle, .in, .expect"
    );
    let a = asm(src, &opts.allow_directive("out")).unwrap();
    let d: Vec<_> = a.directives().collect();
    assert_eq!(d.len(), 3);
    assert_eq!(
        (
            d[0].name.as_str(),
            d[0].args.as_str(),
            d[0].line,
            d[0].args_column
        ),
        ("in", "sbuf[p0..128]+0x0 fp32 x.npy", 2, 6)
    );
    assert_eq!(d[0].instructions_before, 1);
    assert_eq!(d[1].name, "expect");
}

#[test]
fn dtype_error_names_line_column_and_allowed_values() {
    let src = "# header\n\nts_arith in=fp32 out=fp33\n";
    let e = errors(src, Gen::Cayman);
    assert_eq!(
        e,
        [
            "line 3, col 22: unknown dtype `fp33`; expected one of invalid, uint64, int8, uint8, \
          int16, uint16, bfloat16, fp16, int32, uint32, fp32, fp32r, int64, fp8_exp3, fp8_exp4, \
          fp8_exp5 (or a number)"
        ]
    );
}

#[test]
fn every_error_of_a_file_is_reported_in_order() {
    let src = "\
foo x=1
iota outt=fp32 out=bf16 out_dtype=fp32
.gen sundaa
ts_arith channels=300 src=sbuf[p0..64]+0x0:[[1,32]] dst=sbuf[p0..32]+0x0:[[1,2]]
ts_arith src=sbuf[p0..64]+0x0:[[1,2],[1,1],[1,1],[1,1]] x y=1 src0=1 dst=
.bundle 0011
affine_select mask=0:[[1,2] opcode=0x30
iota src=0:[[1,70000]] dst=sbuf[p200]+0x0:[]
iota dst=psum[p0..2]+0x8000:[] ; psum partitions are 32 KiB apart
    ümlaut=1
";
    let e = errors(src, Gen::Cayman);
    let heads: Vec<&str> = e
        .iter()
        .map(|s| s.split(':').next().unwrap_or(""))
        .collect();
    assert_eq!(
        heads,
        [
            "line 1, col 1",
            "line 2, col 6",
            "line 2, col 25",
            "line 3, col 6",
            "line 4, col 19",
            "line 4, col 57",
            "line 5, col 50",
            "line 5, col 57",
            "line 5, col 59",
            "line 5, col 63",
            "line 5, col 73",
            "line 6, col 9",
            "line 7, col 20",
            "line 7, col 29",
            "line 8, col 16",
            "line 8, col 34",
            "line 9, col 22",
            "line 10, col 5",
        ],
        "{e:#?}"
    );
    let all = e.join("\n");
    for needle in [
        "unknown mnemonic `foo`; expected one of ",
        "ts_arith, ts_ptr_arith",
        "unknown field `outt` for iota; expected one of src_data_pattern",
        "short names: src (src_data_pattern)",
        "field `out_dtype` is given twice (first as `out` at col 16)",
        "unknown generation `sundaa`; expected one of sunda, cayman, mariana, maverick",
        "num_active_channels: `300` is not a u8 (0..=255)",
        "the partition range `sbuf[p0..32]+0x0` of dst_mem_pattern means 32 active channels, but the partition range `sbuf[p0..64]+0x0` of src_mem_pattern means 64",
        "unknown field `src0` for ts_arith",
        "src_mem_pattern has 3 [step,num] slots; this is pair 4",
        "missing value after `dst=`",
        "expected `=` after field name `x`",
        "`.bundle` takes exactly 64 bytes (128 hex digits); got 2 (4 digits)",
        "unclosed `[` in value",
        "the opcode is set by the mnemonic",
        "num `70000` is not an integer in 0..=65535",
        "start partition `200` is not in 0..128",
        "offset `0x8000` is not in 0..0x8000 (one psum partition on cayman)",
        "unknown mnemonic `ümlaut=1` (the line must start with a mnemonic)",
    ] {
        assert!(all.contains(needle), "missing {needle:?} in\n{all}");
    }
}

#[test]
fn channel_counts_from_ranges_and_fields_must_agree() {
    let e = errors(
        "iota dst=sbuf[p0..64]+0x0:[[1,1]] channels=128",
        Gen::Cayman,
    );
    assert_eq!(
        e,
        ["line 1, col 10: the partition range `sbuf[p0..64]+0x0` of dst_mem_pattern means 64 active channels, but num_active_channels=128 means 128"]
    );
    let ok = asm_line(
        "ts_arith src=sbuf[p0..64]+0x0:[[1,1]] dst=psum[p64..128]+0x0:[[1,1]] channels=64",
        Gen::Cayman,
    )
    .unwrap();
    assert_eq!(ok.encode()[34], 64);
}

#[test]
fn asm_errors_carry_byte_spans_into_the_source() {
    let src = "iota channels=1\n  iota out=fp33\n";
    let e = asm(src, &AsmOptions::default()).unwrap_err();
    let err = &e.0[0];
    assert_eq!(&src[err.span.clone()], "fp33");
    assert_eq!((err.line, err.column), (2, 12));
    assert_eq!(
        asm_line("# one\niota\n", Gen::Cayman).unwrap().opcode(),
        Opcode::IOTA
    );
    assert!(asm_line("iota\niota", Gen::Cayman).is_err());
    assert!(asm_line(".gen sunda", Gen::Cayman).is_err());
    assert_eq!(
        asm(".gen", &AsmOptions::default()).unwrap_err().to_string(),
        "line 1, col 1: missing generation after `.gen`; expected one of sunda, cayman, mariana, maverick"
    );
    // A byte-order mark is skipped; spans still index the original source.
    let bom = "\u{feff}iota out=fp33";
    let e = asm(bom, &AsmOptions::default()).unwrap_err();
    assert_eq!((&bom[e.0[0].span.clone()], e.0[0].column), ("fp33", 10));
}
