//! Zero-filled buffers whose untouched pages cost nothing: the on-chip memories and their
//! shadows (about 30 MiB a machine on cayman, of which a kernel touches a few hundred KiB).
//!
//! They are anonymous mappings (`memmap2`), which the OS fills with zero pages on first
//! touch, whatever the global allocator does: `vec![0; n]` is calloc under the system
//! allocator, but mimalloc (the Python extension's allocator) zeroes a large block it
//! reuses with a memset that touches every page, 25 ms a new machine (docs/benchmarks.md,
//! "Seventh pass"). A buffer whose mapping the OS refuses is an ordinary zeroed vector.

use std::ops::{Deref, DerefMut};

use bytemuck::Pod;
use memmap2::MmapMut;

/// `len` zero values of `T`, readable and writable as a slice.
pub(crate) struct ZeroPages<T: Pod> {
    store: Store<T>,
    len: usize,
}

enum Store<T> {
    /// Page-aligned, so any `T` of alignment up to a page is aligned.
    Mapped(MmapMut),
    Heap(Vec<T>),
}

impl<T: Pod> ZeroPages<T> {
    /// `len` zeros.
    pub(crate) fn new(len: usize) -> ZeroPages<T> {
        let bytes = len.saturating_mul(std::mem::size_of::<T>());
        let store = match bytes {
            0 => Store::Heap(Vec::new()),
            _ => match MmapMut::map_anon(bytes) {
                Ok(m) => Store::Mapped(m),
                Err(_) => Store::Heap(vec![T::zeroed(); len]),
            },
        };
        ZeroPages { store, len }
    }
}

impl<T: Pod> Deref for ZeroPages<T> {
    type Target = [T];

    #[inline(always)]
    fn deref(&self) -> &[T] {
        match &self.store {
            // A page-aligned mapping of exactly `len` values: the cast cannot fail.
            Store::Mapped(m) => bytemuck::cast_slice(&m[..]),
            Store::Heap(v) => v,
        }
    }
}

impl<T: Pod> DerefMut for ZeroPages<T> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut [T] {
        match &mut self.store {
            Store::Mapped(m) => bytemuck::cast_slice_mut(&mut m[..]),
            Store::Heap(v) => v,
        }
    }
}

impl<T: Pod> Clone for ZeroPages<T> {
    fn clone(&self) -> ZeroPages<T> {
        let mut copy = ZeroPages::new(self.len);
        copy.copy_from_slice(self);
        copy
    }
}

impl<T: Pod + PartialEq> PartialEq for ZeroPages<T> {
    fn eq(&self, other: &ZeroPages<T>) -> bool {
        self[..] == other[..]
    }
}

impl<T: Pod + Eq> Eq for ZeroPages<T> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_pages_read_zero_hold_what_is_written_and_clone_equal() {
        for len in [0usize, 1, 7, 4096, 100_003] {
            let mut w = ZeroPages::<u64>::new(len);
            assert_eq!(w.len(), len);
            assert!(w.iter().all(|&x| x == 0));
            for (i, x) in w.iter_mut().enumerate().step_by(511) {
                *x = i as u64 * 3 + 1;
            }
            let c = w.clone();
            assert!(c == w);
            for (i, x) in c.iter().enumerate() {
                let want = if i % 511 == 0 { i as u64 * 3 + 1 } else { 0 };
                assert_eq!(*x, want, "element {i} of {len}");
            }
            let b = ZeroPages::<u8>::new(len);
            assert_eq!(b.len(), len);
            assert!(b.iter().all(|&x| x == 0));
        }
    }
}
