# sunda TensorScalarPtrMultiDualArith (0x87): two ALU stages per slice, a normalisation
# (x - mean_i) * rstd_i with a (mean, rstd) pair per slice and partition from the flops.
#
#   out[p][i][x] = bf16((fp32(data[p][i][x]) - flop[2i]) * flop[2i+1])
#
# data is float8_e5m2 as ml_dtypes writes it ('<f1', which numpy itself cannot load).
.gen sunda
.in     dual_data.npy    @ sbuf[p0..128]+0x0:fp8_exp5:128x4x64
.in     dual_scalars.npy @ sbuf[p0..128]+0x8000:fp32:128x8

imm_ld_arith src=sbuf[p0..128]+0x8000:[[1,8]] dtype=fp32
ptr_multi_dual_arith src=sbuf[p0..128]+0x0:[[1,64],[1,1],[1,1],[64,4]] in=fp8_exp5 out=bf16 op=subtract op_dim=xyz dst=sbuf[p0..128]+0x1000:[[1,64],[1,1],[1,1],[64,4]]

.out    sbuf[p0..128]+0x1000:bf16:128x4x64 @ normalised.npy
.expect sbuf[p0..128]+0x1000:bf16:128x4x64 == dual.expected.npy
.show   sbuf[p0..128]+0x1000:bf16:128x256 4x6
