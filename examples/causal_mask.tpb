# Causal attention mask, the nki-library parameterisation (nki-semantics §1.1).
#
# scores[q][k] is kept where q - k >= 0 and replaced by -FLT_MAX (from register 7, read as
# fp32 bits) elsewhere; the output is bf16, so the fill rounds to -inf (decisions §4.10).
# Iota writes the affine value q - k that AffineSelect compares with 0, as int32.
#
#   tpb run examples/causal_mask.tpb
#
# Inputs and expected outputs come from tools/gen_example_inputs.py (numpy + ml_dtypes).
.gen cayman
.in     causal_scores.npy @ sbuf[p0..128]+0x0:fp32:128x512
.reg    7 = -3.4028235e38

iota src=0:[[-1,512]] multiplier=1 out=int32 dst=sbuf[p0..128]+0x1000:[[1,512]]
affine_select dtypes=fp32->bf16 cmp=ge fill_reg=7 pattern=0:[[-1,512]] multiplier=1 src=sbuf[p0..128]+0x0:[[1,512]] dst=sbuf[p0..128]+0x800:[[1,512]]

.out    sbuf[p0..128]+0x800:bf16:128x512 @ causal_mask.npy
.out    sbuf[p0..128]+0x1000:int32:128x512 @ causal_offsets.npy
.expect sbuf[p0..128]+0x800:bf16:128x512 == causal_mask.expected.npy
.expect sbuf[p0..128]+0x1000:int32:128x512 == causal_offsets.expected.npy
.show   sbuf[p0..128]+0x800:bf16:128x512 8x16 mark=-inf
