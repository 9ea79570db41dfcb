//! Per-channel state that keeps its initial values until an instruction first writes it:
//! the DVE scalar flops and the hidden DVE lanes (about 16 KiB for 128 channels), which a
//! new machine wrote out at every kernel's start although few kernels use them (4 % of a
//! small kernel's replay; docs/benchmarks.md, "Seventh pass").

use std::fmt;
use std::ops::{Deref, DerefMut};

/// One `T` per channel: reads see `initial` until the first mutable access, which copies it.
#[derive(Clone)]
pub struct PerChannel<T: 'static> {
    written: Vec<T>,
    initial: &'static [T],
}

impl<T: Copy> PerChannel<T> {
    /// Every channel at its `initial` value.
    pub(crate) const fn new(initial: &'static [T]) -> PerChannel<T> {
        PerChannel {
            written: Vec::new(),
            initial,
        }
    }
}

impl<T: Copy> Deref for PerChannel<T> {
    type Target = [T];

    #[inline]
    fn deref(&self) -> &[T] {
        match self.written.is_empty() {
            true => self.initial,
            false => &self.written,
        }
    }
}

impl<T: Copy> DerefMut for PerChannel<T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut [T] {
        if self.written.is_empty() {
            self.written = self.initial.to_vec();
        }
        &mut self.written
    }
}

impl<T: Copy + PartialEq> PartialEq for PerChannel<T> {
    /// The same values, whether copied or not.
    fn eq(&self, other: &PerChannel<T>) -> bool {
        self[..] == other[..]
    }
}

impl<T: Copy + Eq> Eq for PerChannel<T> {}

impl<T: Copy + fmt::Debug> fmt::Debug for PerChannel<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const INITIAL: &[u32] = &[7; 4];

    #[test]
    fn reads_see_the_initial_values_until_a_write_copies_them() {
        let fresh = PerChannel::new(INITIAL);
        let mut a = fresh.clone();
        assert_eq!(&a[..], INITIAL);
        assert!(a.written.is_empty(), "a read copies nothing");
        a[2] = 9;
        assert_eq!(&a[..], &[7, 7, 9, 7]);
        assert_ne!(a, fresh);
        a[2] = 7;
        assert_eq!(a, fresh, "equal by value, copied or not");
        let b = a.clone();
        assert_eq!(b, a);
        assert_eq!(format!("{fresh:?}"), "[7, 7, 7, 7]");
    }
}
