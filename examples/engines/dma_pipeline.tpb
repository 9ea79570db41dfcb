# Device memory in, compute, device memory out: two DMA queues and DVE, ordered by semaphores.
#
#   tpb run examples/engines/dma_pipeline.tpb --timeline out/dma_pipeline.svg
#
# SP issues a DMA request (dma_memcpy) that moves the 128 × 512 fp32 scores from HBM into SBUF
#   on SP's DMA queue (DMA.SP); the DGE adds 1 to semaphore 1 when the data has landed.
# DVE waits for semaphore 1, scales the tile by 1/8 and increments semaphore 2.
# ACT issues the DMA request that moves the result back to HBM (DMA.ACT) once semaphore 2 is 1.
# Each DMA appears twice in the report and the timeline: its issue (600 ns, DMA_ISSUE_NS) on
# SP / ACT, its transfer on the DMA queue (256 KiB at DMA_ENGINE_MB_PER_S × 16 engines).
# HBM addresses and the SBUF partition stride (0x40000) are in tpb's DMA address map
# (docs/reference/dma.md). Expected output: numpy, scores * 0.125.
.gen cayman
.in     scores.npy @ hbm+0x0:fp32:128x512

.engine sp
dma_memcpy semaphore=1 sem_increment=1 src=hbm+0x0:[[2048,128],[0,1]] src_elem_size=2048 dst=sbuf[p0]+0x0:[[262144,128],[0,1]] dst_elem_size=2048 in_dtype=fp32 out_dtype=fp32

.engine dve
ts_arith src=sbuf[p0..128]+0x0:[[1,512]] in=fp32 out=fp32 op0=mult imm0=0.125 dst=sbuf[p0..128]+0x1000:[[1,512]] wait_mode=sem_ge_imm wait_idx=1 semaphore_value=1 update_mode=sem_inc_complete update_idx=2

.engine act
dma_memcpy semaphore=3 sem_increment=1 src=sbuf[p0]+0x1000:[[262144,128],[0,1]] src_elem_size=2048 dst=hbm+0x100000:[[2048,128],[0,1]] dst_elem_size=2048 in_dtype=fp32 out_dtype=fp32 wait_mode=sem_ge_imm wait_idx=2 semaphore_value=1

.expect hbm+0x100000:fp32:128x512 == dma_scaled.expected.npy
.out    hbm+0x100000:fp32:128x512 @ dma_pipeline.npy
