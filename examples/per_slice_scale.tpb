# Per-slice scale (seed 000): ImmLd loads 4 fp32 scales per partition into the DVE flops,
# then PtrMultiArith multiplies slice i (64 bf16 elements) of each partition by scale i.
#
#   out[p][i][x] = bf16(fp32(data[p][i][x]) * scale[p][i])
#
# data is an ml_dtypes bfloat16 file ('<V2'): the region's dtype tells tpb what it holds.
.gen cayman
.in     scale_data.npy    @ sbuf[p0..128]+0x0:bf16:128x4x64
.in     scale_factors.npy @ sbuf[p0..128]+0x8000:fp32:128x4

imm_ld_arith src=sbuf[p0..128]+0x8000:[[1,4]] dtype=fp32
ptr_multi_arith src=sbuf[p0..128]+0x0:[[1,64],[1,1],[1,1],[64,4]] in=bf16 out=bf16 op=mult op_dim=xyz dst=sbuf[p0..128]+0x1000:[[1,64],[1,1],[1,1],[64,4]]

.out    sbuf[p0..128]+0x1000:bf16:128x4x64 @ scaled.npy
.expect sbuf[p0..128]+0x1000:bf16:128x4x64 == scale.expected.npy
.show   sbuf[p0..128]+0x1000:bf16:128x256 4x6
