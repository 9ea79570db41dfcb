//! On-chip memory geometry per generation (isa-facts §2.2, decisions §3.1). Pure data.

use crate::gen::Gen;

/// Which on-chip memory an address falls in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    /// The state buffer (SBUF).
    Sbuf,
    /// The partial-sum buffer (PSUM).
    Psum,
    /// Device memory (HBM): one flat byte space per core, reached only by DMA and the host
    /// (decisions §6.4; isa-facts-pe-act-dma §3.2). It has no partitions: its regions use
    /// partition 0 and byte addresses.
    Hbm,
}

impl Space {
    /// Lowercase name used in text (`sbuf`, `psum`).
    pub const fn name(self) -> &'static str {
        match self {
            Space::Sbuf => "sbuf",
            Space::Psum => "psum",
            Space::Hbm => "hbm",
        }
    }
}

/// The address map of one generation, from `aws_neuron_isa_tpb_common.h`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    /// Partitions (channels) in SBUF and PSUM.
    pub partitions: u32,
    /// `STATE_BUF_PARTITION_SIZE`: byte stride between SBUF partitions.
    pub sbuf_partition_stride: u32,
    /// Active (usable) SBUF bytes per partition.
    pub sbuf_active_bytes: u32,
    /// `STATE_BUF_SZ`: SBUF address-window size.
    pub state_buf_sz: u32,
    /// `PSUM_BUF_OFFSET`.
    pub psum_base: u32,
    /// `PSUM_BUF_SZ` (0 on maverick: no PSUM).
    pub psum_buf_sz: u32,
    /// Byte stride between PSUM partitions.
    pub psum_partition_stride: u32,
    /// Active PSUM bytes per partition.
    pub psum_active_bytes: u32,
}

/// `TPB_PARTITION_ADDR_MASK`: the 29-bit byte-address part of ADDR4.
pub const PARTITION_ADDR_MASK: u32 = 0x1FFF_FFFF;
/// `POOLING_NUM_CHANNELS` == `DVE_NUM_CHANNELS` == 128.
pub const NUM_CHANNELS: u32 = 128;
/// `NUM_ADDR_REGISTERS`: the register file size (decisions §2.5).
pub const NUM_REGISTERS: u32 = 64;

const KIB: u32 = 1024;

/// `(a / stride, a % stride)` for a power-of-two stride (every stride is one:
/// `Geometry::build` asserts it), as a shift and a mask: a division costs tens of cycles on
/// the validation hot path.
#[inline(always)]
const fn split(a: u32, stride: u32) -> (u32, u32) {
    (a >> stride.trailing_zeros(), a & (stride - 1))
}

/// Every generation's geometry, indexed by `Gen as usize` (built once, at compile time).
const GEOMETRIES: [Geometry; 4] = [
    Geometry::build(Gen::Sunda),
    Geometry::build(Gen::Cayman),
    Geometry::build(Gen::Mariana),
    Geometry::build(Gen::Maverick),
];

impl Geometry {
    /// The geometry of `gen` (a table lookup: validation asks for it per operand).
    #[inline(always)]
    pub const fn of(gen: Gen) -> Geometry {
        GEOMETRIES[gen as usize]
    }

    const fn build(gen: Gen) -> Geometry {
        let (stride, active, sz, psum_sz) = match gen {
            Gen::Sunda => (256 * KIB, 192 * KIB, 0x200_0000, 0x40_0000),
            Gen::Cayman => (256 * KIB, 224 * KIB, 0x200_0000, 0x40_0000),
            Gen::Mariana => (256 * KIB, 256 * KIB, 0x200_0000, 0x40_0000),
            Gen::Maverick => (1024 * KIB, 512 * KIB, 0x800_0000, 0),
        };
        let g = Geometry {
            partitions: 128,
            sbuf_partition_stride: stride,
            sbuf_active_bytes: active,
            state_buf_sz: sz,
            psum_base: 0x200_0000,
            psum_buf_sz: psum_sz,
            psum_partition_stride: 32 * KIB,
            psum_active_bytes: 16 * KIB,
        };
        // `locate` divides by shifting.
        assert!(
            g.sbuf_partition_stride.is_power_of_two() && g.psum_partition_stride.is_power_of_two()
        );
        g
    }

    /// `addr_in_sbuf(a)` on the masked 29-bit address.
    #[inline]
    pub const fn in_sbuf(&self, a: u32) -> bool {
        (a & PARTITION_ADDR_MASK) < self.state_buf_sz
    }

    /// `addr_in_psum(a)` on the masked 29-bit address (never true on maverick). Checked
    /// before SBUF where the windows overlap.
    #[inline]
    pub const fn in_psum(&self, a: u32) -> bool {
        let a = a & PARTITION_ADDR_MASK;
        self.psum_buf_sz != 0 && a >= self.psum_base && a - self.psum_base < self.psum_buf_sz
    }

    /// Splits a masked byte address into (space, partition, offset within partition).
    #[inline(always)]
    pub const fn locate(&self, a: u32) -> Option<(Space, u32, u32)> {
        let a = a & PARTITION_ADDR_MASK;
        if self.in_psum(a) {
            let r = a - self.psum_base;
            let (p, o) = split(r, self.psum_partition_stride);
            Some((Space::Psum, p, o))
        } else if self.in_sbuf(a) {
            let (p, o) = split(a, self.sbuf_partition_stride);
            Some((Space::Sbuf, p, o))
        } else {
            None
        }
    }

    /// The byte address of (space, partition, offset); `None` if it does not fit the window.
    pub const fn address(&self, space: Space, partition: u32, offset: u32) -> Option<u32> {
        match space {
            Space::Sbuf => {
                if partition >= self.partitions || offset >= self.sbuf_partition_stride {
                    return None;
                }
                Some(partition * self.sbuf_partition_stride + offset)
            }
            Space::Psum => {
                if self.psum_buf_sz == 0
                    || partition >= self.partitions
                    || offset >= self.psum_partition_stride
                {
                    return None;
                }
                Some(self.psum_base + partition * self.psum_partition_stride + offset)
            }
            // HBM is not in the ADDR4 window (ADDR8 reaches it, `crate::wire::Addr8`).
            Space::Hbm => None,
        }
    }

    /// Partition stride of a space.
    pub const fn stride(&self, space: Space) -> u32 {
        match space {
            Space::Sbuf => self.sbuf_partition_stride,
            Space::Psum => self.psum_partition_stride,
            Space::Hbm => 0,
        }
    }

    /// Active bytes per partition of a space.
    pub const fn active_bytes(&self, space: Space) -> u32 {
        match space {
            Space::Sbuf => self.sbuf_active_bytes,
            Space::Psum => self.psum_active_bytes,
            Space::Hbm => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // isa-facts §2.2 per-generation constants table.
    #[test]
    fn per_gen_constants() {
        let s = Geometry::of(Gen::Sunda);
        assert_eq!(
            (s.sbuf_partition_stride, s.sbuf_active_bytes),
            (0x40000, 192 * 1024)
        );
        assert_eq!(Geometry::of(Gen::Cayman).sbuf_active_bytes, 224 * 1024);
        assert_eq!(Geometry::of(Gen::Mariana).sbuf_active_bytes, 256 * 1024);
        let v = Geometry::of(Gen::Maverick);
        assert_eq!(
            (v.sbuf_partition_stride, v.state_buf_sz, v.psum_buf_sz),
            (0x100000, 0x8000000, 0)
        );
        // Compiler fold: (part << 18) + off for SBUF, 0x2000000 + (part << 15) + off for PSUM.
        assert_eq!(s.address(Space::Sbuf, 3, 0x400), Some((3 << 18) + 0x400));
        assert_eq!(
            s.address(Space::Psum, 2, 0x10),
            Some(0x200_0000 + (2 << 15) + 0x10)
        );
        assert_eq!(
            s.locate(0x200_0000 + (2 << 15) + 0x10),
            Some((Space::Psum, 2, 0x10))
        );
        assert_eq!(v.locate(0x200_0000), Some((Space::Sbuf, 32, 0)));
        assert_eq!(v.address(Space::Psum, 0, 0), None);
    }
}
