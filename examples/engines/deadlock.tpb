# Two engines waiting on each other: tpb must stop and report a deadlock.
#
#   tpb run examples/engines/deadlock.tpb      # exits 1 naming both blocked waits
#
# Each engine does some work, then its second instruction waits for a semaphore that only
# the other engine's second instruction increments: POOL waits for semaphore 1 (DVE's),
# DVE waits for semaphore 0 (POOL's). Neither can start.
.gen cayman
.in     scores.npy @ sbuf[p0..128]+0x0:fp32:128x512

iota src=0:[[1,512]] out=fp32 dst=sbuf[p0..128]+0x4000:[[1,512]]
ts_arith src=sbuf[p0..128]+0x0:[[1,512]] in=fp32 out=fp32 op0=mult imm0=0.125 dst=sbuf[p0..128]+0x6000:[[1,512]]
iota src=0:[[-1,512]] out=fp32 dst=sbuf[p0..128]+0x8000:[[1,512]] wait_mode=sem_ge_imm wait_idx=1 semaphore_value=1 update_mode=sem_inc_complete update_idx=0
ts_arith src=sbuf[p0..128]+0x4000:[[1,512]] in=fp32 out=fp32 op0=add imm0=1.0 dst=sbuf[p0..128]+0xA000:[[1,512]] wait_mode=sem_ge_imm wait_idx=0 semaphore_value=1 update_mode=sem_inc_complete update_idx=1
