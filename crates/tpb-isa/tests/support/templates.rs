//! Compiler-like instruction lines (the valid corpus of the decode bench and of the
//! disassembler-differential test).

/// Valid cayman instructions, one per modelled opcode family (from docs/syntax.md; sunda's
/// bf16 TensorTensor trio has none: it does not exist on cayman).
pub const TEMPLATES: &[&str] = &[
    "ts_arith src=sbuf[p0..128]+0x0:[[1,512]] in=fp32 out=bf16 op0=mult imm0=0.125 op1=add imm1=1.0 dst=sbuf[p0..128]+0x1000:[[1,512]]",
    "ts_ptr_arith src=sbuf[p0..128]+0x0:[[1,512]] in=fp32 out=fp32 imm0=0x8000 imm1=0x8004 op0=subtract op1=mult dst=sbuf[p0..128]+0x1000:[[1,512]]",
    "imm_ld_arith src=sbuf[p0..128]+0x8000:[[1,4]] dtype=fp32",
    "ptr_multi_arith src=sbuf[p0..128]+0x0:[[1,64],[1,1],[1,1],[64,4]] in=fp32 out=bf16 op=mult op_dim=xyz dst=sbuf[p0..128]+0x1000:[[1,64],[1,1],[1,1],[64,4]]",
    "ts_bitvec src=sbuf[p0..128]+0x0:[[1,256]] in=int32 out=int32 op0=and imm0=0xff op1=shl imm1=4 dst=sbuf[p0..128]+0x400:[[1,256]]",
    "ptr_multi_bitvec src=sbuf[p0..128]+0x0:[[1,128],[1,1],[1,1],[128,2]] in=uint32 out=uint32 op=and op_dim=xyz dst=sbuf[p0..128]+0x400:[[1,128],[1,1],[1,1],[128,2]]",
    "iota src=0:[[1,512]] multiplier=512 out=int32 dst=sbuf[p0..128]+0x0:[[1,512]]",
    "affine_select dtypes=fp32->bf16 cmp=ge fill_reg=7 pattern=0:[[-1,512]] multiplier=1 src=sbuf[p0..128]+0x0:[[1,512]] dst=sbuf[p0..128]+0x800:[[1,512]]",
    "ts_select src=sbuf[p0..128]+0x0:[[1,256]] dtype=fp32 pred_imm_dtype=uint32 src1_imm=0.0 pred_imm=1 dst=sbuf[p0..128]+0x400:[[1,256]]",
    "range_select dtypes=fp32->fp32 reduce_op=max base=0.0 fill_val=-3.4028235e38 src=sbuf[p0..128]+0x0:[[1,512]] comp_op0=ge comp_op1=lt bound0=0.0 bound1=64.0 dst=sbuf[p0..128]+0x800:[[1,512]]",
    // Issue 17a (docs/syntax.md, isa-facts-dve-pool).
    "tt_arith in0_in1_dtype=fp32->bf16 out_dtype=bf16 op=mult src0_mem_pattern=sbuf[p0..128]+0x0:[[1,256]] src1_mem_pattern=sbuf[p0..128]+0x400:[[1,256]] dst=sbuf[p0..128]+0x800:[[1,256]]",
    "tt_bitvec in0_in1_dtype=uint32->uint32 out_dtype=uint32 op=xor src0_mem_pattern=sbuf[p0..128]+0x0:[[1,64]] src1_mem_pattern=sbuf[p0..128]+0x100:[[1,64]] dst=sbuf[p0..128]+0x200:[[1,64]]",
    "copy_predicated in0_in1_dtype=uint8->fp32 out_dtype=fp32 op=bypass src0_mem_pattern=sbuf[p0..128]+0x0:[[1,128]] src1_mem_pattern=sbuf[p0..128]+0x400:[[1,128]] dst=sbuf[p0..128]+0x800:[[1,128]]",
    "copy_predicated_scalar pred_mem_pattern=sbuf[p0..128]+0x0:[[1,128]] pred_dtype=uint8 reversed_pred=1 in=fp32 out=fp32 src0_imm_src=0 src0_imm=0xff800000 dst=sbuf[p0..128]+0x400:[[1,128]]",
    "cast src=sbuf[p0..128]+0x0:[[1,512]] in=fp32 out=bf16 op=bypass dst=sbuf[p0..128]+0x800:[[1,512]]",
    "memset dst_element_count=512 dtype=bf16 set_value=0x3f80 dst=sbuf[p0..128]+0x0:[[1,512]]",
    "tensor_reduce_arith src=sbuf[p0..128]+0x0:[[1,64],[64,8]] in=bf16 out=fp32 negated=1 op=add op_dim=x dst=sbuf[p0..128]+0x1000:[[1,8]]",
    "stream_transpose src=sbuf[p0..32]+0x0:[[1,32]] in=bf16 out=bf16 op=bypass dst=sbuf[p0..32]+0x400:[[1,32]]",
    "reciprocal src=sbuf[p0..128]+0x0:[[1,512]] in=fp32 out=fp32 op=bypass dst=sbuf[p0..128]+0x800:[[1,512]]",
    "dve_read_indices dst_element_count=8 dtype=uint32 dst=sbuf[p0..128]+0x0:[[1,8]]",
    "stream_shuffle src=sbuf[p0..32]+0x0:[[1,64]] in=fp32 out=fp32 op=bypass dst=sbuf[p0..32]+0x400:[[1,64]]",
    // Issue 17b (docs/syntax.md, isa-facts-dve-pool §8-§16).
    "stt_arith src0_mem_pattern=sbuf[p0..128]+0x0:[[1,512]] src1_mem_pattern=sbuf[p0..128]+0x800:[[1,512]] op0=mult op1=add dtypes=fp32->fp32 out=fp32 imm0_dtype=fp32 imm0=0.5 dst=sbuf[p0..128]+0x1000:[[1,512]]",
    "stt_bitvec src0_mem_pattern=sbuf[p0..128]+0x0:[[1,512]] src1_mem_pattern=sbuf[p0..128]+0x800:[[1,512]] op0=bitwise_and op1=bitwise_or dtypes=uint32->uint32 out=uint32 imm0_dtype=uint32 imm0=0xff dst=sbuf[p0..128]+0x1000:[[1,512]]",
    "tt_scan src0_mem_pattern=sbuf[p0..128]+0x0:[[1,512]] src1_mem_pattern=sbuf[p0..128]+0x800:[[1,512]] op0=mult op1=add dtypes=fp32->fp32 out=fp32 imm0_dtype=fp32 imm0=0.0 dst=sbuf[p0..128]+0x1000:[[1,512]]",
    "select_reduce src0_mem_pattern=sbuf[p0..128]+0x0:[[1,512]] src1_mem_pattern=sbuf[p0..128]+0x800:[[1,512]] op0=bypass op1=max reverse=first dtypes=uint8->fp32 out=fp32 imm0_dtype=fp32 imm0=-3.0e38 accumulator_cmd=zero_accumulate dst=sbuf[p0..128]+0x1000:[[1,512]]",
    "ts_cache_reduce accumulator_cmd=zero_accumulate src=sbuf[p0..128]+0x0:[[1,512]] in=fp32 out=fp32 op0=mult op1=add imm0=2.0 dst=sbuf[p0..128]+0x800:[[1,512]]",
    "dve_read_acc dst_element_count=1 dtype=fp32 dst=sbuf[p0..128]+0x1000:[[1,1]]",
    "cross_lane_reduce_arith src=sbuf[p0..128]+0x0:[[1,64]] in=fp32 out=fp32 reduce_op=average reduce_axis=partitions scale=0.0078125 dst=sbuf[p0]+0x800:[[1,64]]",
    "max8 src=sbuf[p0..128]+0x0:[[1,1024]] in=fp32 out=fp32 dst=sbuf[p0..128]+0x8000:[[1,8]]",
    "match_value_load src=sbuf[p0..128]+0x8000:[[1,8]] dtype=fp32",
    "match_replace8 src=sbuf[p0..128]+0x0:[[1,1024]] in=fp32 out=fp32 immediate=-inf dst=sbuf[p0..128]+0x0:[[1,1024]]",
    "load_mask_select immediate=1f1e1d1c1b1a191817161514131211100f0e0d0c0b0a09080706050403020100",
];
