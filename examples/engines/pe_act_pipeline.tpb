# DMA in → matmul → exp → DMA out, in two chunks, across SP's DMA queue, PE, ACT and ACT's DMA
# queue, ordered by semaphores only.
#
#   tpb run examples/engines/pe_act_pipeline.tpb --timeline out/pe_act_pipeline.svg
#
# HBM holds W (128 × 128 bf16, the stationary tile) and X (128 × 512 bf16, the moving tile).
# SP issues three DMA requests on its DMA queue (DMA.SP): W, then X's columns 0..256, then
# 256..512; the DGE adds 1 to semaphore 1 as each one lands (assumption dma-completion).
# PE loads the weights once semaphore 1 >= 1 and runs one Matmul per chunk, chunk c once
#   semaphore 1 >= c + 2, into PSUM bank c: psum[m][j] = Σ_k W[k][m] · X[k][j], exact per
#   tpb's documented order (fp32 products summed sequentially over k; the hardware's order
#   is not public, so the report labels each Matmul exact-per-our-order). Each Matmul adds 1
#   to semaphore 2 when it completes.
# ACT, chunk c once semaphore 2 >= c + 1: Activate exp(acc / 16 − 0.5) from PSUM into SBUF
#   (fp32; exp comes from unpublished tables on the hardware, so tpb computes its definition
#   and the report labels it approximate), then issues the DMA request that moves the chunk
#   back to HBM on ACT's DMA queue (DMA.ACT; ACT's own queue orders it after the Activate).
# While PE multiplies chunk 1, ACT already exponentiates chunk 0: the timeline shows the
# overlap. Inputs and expectations: tools/gen_engine_examples.py (numpy + ml_dtypes); the
# PSUM results are checked bit for bit here, the exp output within a tolerance by
# crates/tpb/tests/cli_hbm.rs (`pe_act_pipeline_example_matches_numpy`).
.gen cayman
.in     pe_weights.npy @ hbm+0x0:bf16:128x128
.in     pe_moving.npy  @ hbm+0x10000:bf16:128x512

.engine sp
dma_memcpy semaphore=1 sem_increment=1 src=hbm+0x0:[[256,128],[0,1]] src_elem_size=256 dst=sbuf[p0]+0x0:[[262144,128],[0,1]] dst_elem_size=256 in_dtype=bf16 out_dtype=bf16
dma_memcpy semaphore=1 sem_increment=1 src=hbm+0x10000:[[1024,128],[0,1]] src_elem_size=512 dst=sbuf[p0]+0x1000:[[262144,128],[0,1]] dst_elem_size=512 in_dtype=bf16 out_dtype=bf16
dma_memcpy semaphore=1 sem_increment=1 src=hbm+0x10200:[[1024,128],[0,1]] src_elem_size=512 dst=sbuf[p0]+0x1200:[[262144,128],[0,1]] dst_elem_size=512 in_dtype=bf16 out_dtype=bf16

.engine pe
load_weights src=sbuf[p0]+0x0:[[1,128]] in=bf16 ctrl=[num_active_rows:128,num_active_cols:128,row_grp:0xf,col_grp:0xf] wait_mode=sem_ge_imm wait_idx=1 semaphore_value=1
matmul src=sbuf[p0]+0x1000:[[1,256]] in=bf16 ctrl=[num_active_rows:128,num_active_cols:128,psum_accumulate_flags:3,row_grp:0xf,col_grp:0xf] dst=psum[p0]+0x0:[[1,256]] wait_mode=sem_ge_imm wait_idx=1 semaphore_value=2 update_mode=sem_inc_complete update_idx=2
matmul src=sbuf[p0]+0x1200:[[1,256]] in=bf16 ctrl=[num_active_rows:128,num_active_cols:128,psum_accumulate_flags:3,row_grp:0xf,col_grp:0xf] dst=psum[p0]+0x800:[[1,256]] wait_mode=sem_ge_imm wait_idx=1 semaphore_value=3 update_mode=sem_inc_complete update_idx=2

.engine act
activate src=psum[p0..128]+0x0:[[1,256]] in_bias_dtype=fp32->fp32 out=fp32 activation_func=exp scale_value=0.0625 bias_src_n=instruction bias=-0.5 dst=sbuf[p0..128]+0x2000:[[1,256]] wait_mode=sem_ge_imm wait_idx=2 semaphore_value=1
dma_memcpy semaphore=3 sem_increment=1 src=sbuf[p0]+0x2000:[[262144,128],[0,1]] src_elem_size=1024 dst=hbm+0x100000:[[2048,128],[0,1]] dst_elem_size=1024 in_dtype=fp32 out_dtype=fp32
activate src=psum[p0..128]+0x800:[[1,256]] in_bias_dtype=fp32->fp32 out=fp32 activation_func=exp scale_value=0.0625 bias_src_n=instruction bias=-0.5 dst=sbuf[p0..128]+0x2400:[[1,256]] wait_mode=sem_ge_imm wait_idx=2 semaphore_value=2
dma_memcpy semaphore=3 sem_increment=1 src=sbuf[p0]+0x2400:[[262144,128],[0,1]] src_elem_size=1024 dst=hbm+0x100400:[[2048,128],[0,1]] dst_elem_size=1024 in_dtype=fp32 out_dtype=fp32

.expect psum[p0..128]+0x0:fp32:128x256 == pe_psum0.expected.npy
.expect psum[p0..128]+0x800:fp32:128x256 == pe_psum1.expected.npy
.out    hbm+0x100000:fp32:128x512 @ pe_act_pipeline.npy
