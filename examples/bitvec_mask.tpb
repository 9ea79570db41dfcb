# A bit mask per slice: ImmLd(Bitvec) loads 2 uint32 masks per partition as raw bits, then
# PtrMultiBitvec ANDs slice i (64 uint32 elements) of each partition with mask i.
#
#   slice 0: x & 0x7fffffff            (clears the fp32 sign bit: |x|)
#   slice 1: x & (0xffffffff << p%24)  (drops the low p%24 mantissa bits of partition p)
.gen cayman
.in     bitvec_data.npy  @ sbuf[p0..128]+0x0:uint32:128x2x64
.in     bitvec_masks.npy @ sbuf[p0..128]+0x8000:uint32:128x2

imm_ld_bitvec src=sbuf[p0..128]+0x8000:[[1,2]] dtype=uint32
ptr_multi_bitvec src=sbuf[p0..128]+0x0:[[1,64],[1,1],[1,1],[64,2]] in=uint32 out=uint32 op=and op_dim=xyz dst=sbuf[p0..128]+0x400:[[1,64],[1,1],[1,1],[64,2]]

.out    sbuf[p0..128]+0x400:uint32:128x2x64 @ masked_bits.npy
.expect sbuf[p0..128]+0x400:uint32:128x2x64 == bitvec.expected.npy
.show   sbuf[p0..128]+0x400:fp32:128x128 4x4
