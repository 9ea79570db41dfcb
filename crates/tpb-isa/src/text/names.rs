//! A small read-only hash table from names (bytes) to values, for the fast path's
//! mnemonic, field-name and enumeration lookups: one hash over the key's bytes and,
//! usually, one comparison. Hand-written because the keys are a few dozen short static
//! strings known at start-up; a general map would hash with SipHash and own its keys.

/// Names (as given, compared byte for byte) with a value each.
pub(crate) struct NameMap {
    /// Open addressing: 0 is empty, else 1 + the index into `entries`.
    buckets: Vec<u16>,
    entries: Vec<(&'static [u8], u16)>,
}

#[inline(always)]
fn hash(key: &[u8]) -> u64 {
    // The length and four sampled bytes, mixed by one multiplication: names that agree on
    // all of them (`src0_…`/`src1_…`) share a bucket chain and are told apart by the
    // comparison, so the sampling costs speed at worst, never a wrong answer.
    let n = key.len();
    let at = |i: usize| u64::from(key.get(i).copied().unwrap_or(0));
    let x = n as u64 ^ at(0) << 8 ^ at(n.wrapping_sub(1)) << 16 ^ at(n / 2) << 24 ^ at(3) << 32;
    x.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32
}

impl NameMap {
    /// The map of `entries`; a name given twice keeps its first value.
    pub(crate) fn new(entries: impl IntoIterator<Item = (&'static [u8], u16)>) -> NameMap {
        let mut kept: Vec<(&'static [u8], u16)> = Vec::new();
        for (k, v) in entries {
            if !kept.iter().any(|(e, _)| *e == k) {
                kept.push((k, v));
            }
        }
        let size = (kept.len() * 4).next_power_of_two().max(16);
        let mut buckets = vec![0u16; size];
        for (i, (k, _)) in kept.iter().enumerate() {
            let mut at = hash(k) as usize & (size - 1);
            while buckets[at] != 0 {
                at = (at + 1) & (size - 1);
            }
            buckets[at] = u16::try_from(i + 1).unwrap_or(u16::MAX);
        }
        NameMap {
            buckets,
            entries: kept,
        }
    }

    /// The value of `key`, if it is one of the names.
    #[inline]
    pub(crate) fn get(&self, key: &[u8]) -> Option<u16> {
        let mask = self.buckets.len() - 1;
        let mut at = hash(key) as usize & mask;
        loop {
            let e = usize::from(*self.buckets.get(at)?);
            let (name, value) = *self.entries.get(e.checked_sub(1)?)?;
            if name.len() == key.len() && name.iter().zip(key).all(|(a, b)| a == b) {
                return Some(value);
            }
            at = (at + 1) & mask;
        }
    }

    /// How many names there are.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_every_name_and_only_those() {
        let names: Vec<String> = (0..300).map(|i| format!("name_{i}")).collect();
        let leaked: Vec<&'static [u8]> = names
            .iter()
            .map(|n| &*Box::leak(n.clone().into_bytes().into_boxed_slice()))
            .collect();
        let m = NameMap::new(leaked.iter().enumerate().map(|(i, k)| (*k, i as u16)));
        assert_eq!(m.len(), 300);
        for (i, k) in leaked.iter().enumerate() {
            assert_eq!(m.get(k), Some(i as u16));
        }
        for miss in [&b""[..], b"name_", b"name_300", b"Name_1", b"name_1 "] {
            assert_eq!(m.get(miss), None);
        }
        let first = NameMap::new([(&b"a"[..], 1), (&b"a"[..], 2)]);
        assert_eq!((first.get(b"a"), first.len()), (Some(1), 1));
    }
}
