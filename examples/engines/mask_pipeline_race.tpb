# The pipeline of mask_pipeline.tpb with its two EventSemaphore records removed: a race tpb
# must report.
#
#   tpb run examples/engines/mask_pipeline_race.tpb      # exits 1: RAW race on the limits
#
# POOL's AffineSelect writes the row limits (sbuf+0xA100) that DVE's RangeSelect reads
# through its bound1 pointer, and nothing orders the two. The timing model happens to run
# the RangeSelect after the AffineSelect (DVE is busy with the scaling first), so the result
# is still right here; on hardware, or with other timings, it need not be. tpb reports the
# race by happens-before, not by the schedule it picked.
.gen cayman
.in     scores.npy @ sbuf[p0..128]+0x0:fp32:128x512
.in     scales.npy @ sbuf[p0..128]+0x8000:fp32:128x4
.reg    7 = 100.0

.engine pool
iota src=1:[[0,1]] multiplier=1 out=fp32 dst=sbuf[p0..128]+0xA000:[[1,1]]
affine_select dtypes=fp32->fp32 cmp=ge fill_reg=7 pattern=99:[[0,1]] multiplier=-1 src=sbuf[p0..128]+0xA000:[[1,1]] dst=sbuf[p0..128]+0xA100:[[1,1]]

.engine dve
imm_ld_arith src=sbuf[p0..128]+0x8000:[[1,4]] dtype=fp32
ptr_multi_arith src=sbuf[p0..128]+0x0:[[1,128],[1,1],[1,1],[128,4]] in=fp32 out=fp32 op=mult op_dim=xyz dst=sbuf[p0..128]+0x1000:[[1,128],[1,1],[1,1],[128,4]]
range_select dtypes=fp32->bf16 reduce_op=max base=0.0 fill_val=-3.4028235e38 src=sbuf[p0..128]+0x1000:[[1,512]] comp_op0=ge comp_op1=lt bound0=0.0 bound1_src=ptr bound1=0xa100 dst=sbuf[p0..128]+0x2000:[[1,512]]

.expect sbuf[p0..128]+0xA100:fp32:128x1 == limits.expected.npy
.expect sbuf[p0..128]+0x2000:bf16:128x512 == masked.expected.npy
.show   sbuf[p0..128]+0x2000:bf16:128x512 8x16 mark=-inf
