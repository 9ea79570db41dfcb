# Two engines, one semaphore: POOL builds a causal mask while DVE scales the scores.
#
#   tpb run examples/engines/mask_pipeline.tpb --timeline out/mask_pipeline.svg
#
# POOL (GpSimd): Iota writes each query row's key limit p + 1; AffineSelect clamps it to the
#   L = 100 valid keys (keeps it where (L-1) - p >= 0, else writes L from register 7); an
#   EventSemaphore record after it increments semaphore 0.
# DVE (Vector): ImmLd loads 4 scales per row, PtrMulti multiplies each 128-key slice by its
#   scale; an EventSemaphore record waits for semaphore 0 >= 1, then RangeSelect reads the
#   limits and keeps key k where 0 <= k < limit[p] (fill -FLT_MAX, bf16: -inf).
# The two queues run concurrently; the semaphore is the only thing that orders them. The
# records are how the compiler synchronises engines (isa-facts §1.3); a wait or update in an
# instruction's own EVENTS header works the same way (see deadlock.tpb).
# Inputs and expected outputs: tools/gen_engine_examples.py (numpy + ml_dtypes).
.gen cayman
.in     scores.npy @ sbuf[p0..128]+0x0:fp32:128x512
.in     scales.npy @ sbuf[p0..128]+0x8000:fp32:128x4
.reg    7 = 100.0

.engine pool
iota src=1:[[0,1]] multiplier=1 out=fp32 dst=sbuf[p0..128]+0xA000:[[1,1]]
affine_select dtypes=fp32->fp32 cmp=ge fill_reg=7 pattern=99:[[0,1]] multiplier=-1 src=sbuf[p0..128]+0xA000:[[1,1]] dst=sbuf[p0..128]+0xA100:[[1,1]]
event_semaphore update1_mode=sem_inc_complete update1_idx=0

.engine dve
imm_ld_arith src=sbuf[p0..128]+0x8000:[[1,4]] dtype=fp32
ptr_multi_arith src=sbuf[p0..128]+0x0:[[1,128],[1,1],[1,1],[128,4]] in=fp32 out=fp32 op=mult op_dim=xyz dst=sbuf[p0..128]+0x1000:[[1,128],[1,1],[1,1],[128,4]]
event_semaphore wait_mode=sem_ge_imm wait_idx=0 semaphore_value=1
range_select dtypes=fp32->bf16 reduce_op=max base=0.0 fill_val=-3.4028235e38 src=sbuf[p0..128]+0x1000:[[1,512]] comp_op0=ge comp_op1=lt bound0=0.0 bound1_src=ptr bound1=0xa100 dst=sbuf[p0..128]+0x2000:[[1,512]]

.expect sbuf[p0..128]+0xA100:fp32:128x1 == limits.expected.npy
.expect sbuf[p0..128]+0x2000:bf16:128x512 == masked.expected.npy
.show   sbuf[p0..128]+0x2000:bf16:128x512 8x16 mark=-inf
