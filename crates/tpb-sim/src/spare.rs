//! Per-thread spares: what a dropped machine leaves for the next machine made on the same
//! thread (a replayed kernel makes a machine per call, docs/benchmarks.md "Third pass" and
//! "Fourth pass"). A thread being torn down, or a list already borrowed, neither gives nor
//! takes: the value is then simply dropped or made anew.

use std::cell::RefCell;
use std::thread::LocalKey;

/// A thread's list of spare values.
pub(crate) type Spares<T> = RefCell<Vec<T>>;

/// One spare from this thread's `list`, if any.
pub(crate) fn take<T: 'static>(list: &'static LocalKey<Spares<T>>) -> Option<T> {
    list.try_with(|s| s.try_borrow_mut().ok().and_then(|mut v| v.pop()))
        .ok()
        .flatten()
}

/// Keeps `values` in this thread's `list`, up to `max` in all (the rest are dropped).
pub(crate) fn give<T: 'static>(
    list: &'static LocalKey<Spares<T>>,
    values: impl IntoIterator<Item = T>,
    max: usize,
) {
    let _ = list.try_with(|s| {
        if let Ok(mut v) = s.try_borrow_mut() {
            let room = max.saturating_sub(v.len());
            v.extend(values.into_iter().take(room));
        }
    });
}
