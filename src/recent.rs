//! Bounded memory for "seen before" checks: a fast 64-bit hash of bytes, and a set of
//! recent hashes in two generations, so that memory stays flat however long the input.

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};

/// A 64-bit hash of bytes, eight at a time (the multiply-rotate scheme of FxHash), in
/// four independent lanes over long inputs (message texts) so that the multiplies
/// overlap. Its values are only compared with each other within one run.
pub fn hash_bytes(bytes: &[u8]) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let word = |c: &[u8]| u64::from_le_bytes(c.try_into().expect("8 bytes"));
    let mut h = bytes.len() as u64;
    let mut blocks = bytes.chunks_exact(32);
    if bytes.len() >= 64 {
        let mut lanes = [h, h ^ 1, h ^ 2, h ^ 3];
        for block in &mut blocks {
            for (lane, c) in lanes.iter_mut().zip(block.chunks_exact(8)) {
                *lane = (lane.rotate_left(5) ^ word(c)).wrapping_mul(K);
            }
        }
        h = lanes.iter().fold(0, |acc: u64, &lane| {
            (acc.rotate_left(5) ^ lane).wrapping_mul(K)
        });
    }
    let rest = if bytes.len() >= 64 {
        blocks.remainder()
    } else {
        bytes
    };
    let mut chunks = rest.chunks_exact(8);
    for c in &mut chunks {
        h = (h.rotate_left(5) ^ word(c)).wrapping_mul(K);
    }
    let mut last = [0u8; 8];
    last[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
    h = (h.rotate_left(5) ^ u64::from_le_bytes(last)).wrapping_mul(K);
    // Final mix, so nearby inputs spread over the whole word.
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^ (h >> 33)
}

/// Hashes that are already hashes need no hashing again.
#[derive(Default)]
pub struct IdentityHasher(u64);

impl Hasher for IdentityHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        self.0 = hash_bytes(bytes);
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

type Set = HashSet<u64, BuildHasherDefault<IdentityHasher>>;

/// The hashes seen among the last `cap` to `2 * cap` inserted: when the current
/// generation is full, it becomes the old one and the older one is dropped.
pub struct RecentSet {
    current: Set,
    old: Set,
    cap: usize,
}

/// How many recent entries each check remembers at least.
pub const RECENT: usize = 1 << 17;

impl Default for RecentSet {
    fn default() -> Self {
        RecentSet::with_cap(RECENT)
    }
}

impl RecentSet {
    pub fn with_cap(cap: usize) -> RecentSet {
        RecentSet {
            current: Set::default(),
            old: Set::default(),
            cap: cap.max(1),
        }
    }

    /// Adds a hash; `false` when it was seen recently.
    pub fn insert(&mut self, hash: u64) -> bool {
        if self.old.contains(&hash) || !self.current.insert(hash) {
            return false;
        }
        if self.current.len() >= self.cap {
            // The oldest generation's table, emptied, holds the next one: it keeps its
            // capacity, so a long run does not grow a table anew per generation.
            let full = std::mem::take(&mut self.current);
            self.current = std::mem::replace(&mut self.old, full);
            self.current.clear();
        }
        true
    }

    pub fn contains(&self, hash: u64) -> bool {
        self.current.contains(&hash) || self.old.contains(&hash)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recent_entries_are_remembered_old_ones_forgotten() {
        let mut s = RecentSet::with_cap(4);
        for n in 0..4 {
            assert!(s.insert(n));
        }
        // 0..4 moved to the old generation: still remembered.
        assert!(!s.insert(2));
        for n in 4..8 {
            assert!(s.insert(n));
        }
        // Two generations later, 0 is forgotten.
        assert!(s.insert(0));
        assert!(!s.insert(7));
    }

    /// Against two plain sets that are replaced, not reused, with small generations so
    /// that many are forgotten.
    #[test]
    fn reused_tables_remember_what_fresh_sets_remember() {
        use std::collections::HashSet;
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for cap in [1, 2, 3, 7, 100, 1000, 5000] {
            let mut table = RecentSet::with_cap(cap);
            let (mut current, mut old) = (HashSet::new(), HashSet::new());
            for n in 0..40_000u64 {
                let r = next();
                // Mostly repeats of a small range, and hashes whose home slots collide.
                let hash = match r % 4 {
                    0 => r,
                    1 => (r % 3000) << 2,
                    _ => hash_bytes(&(r % 20_000).to_le_bytes()),
                };
                let want = !old.contains(&hash) && current.insert(hash);
                if want && current.len() >= cap {
                    old = std::mem::take(&mut current);
                }
                assert_eq!(table.insert(hash), want, "cap {cap}, step {n}");
                let probe = hash_bytes(&r.to_be_bytes());
                assert_eq!(
                    table.contains(probe),
                    current.contains(&probe) || old.contains(&probe)
                );
            }
            assert_eq!(
                table.current.len() + table.old.len(),
                current.len() + old.len()
            );
        }
    }

    #[test]
    fn hashes_differ_for_near_inputs() {
        let a = hash_bytes(b"call_000000001abc");
        let b = hash_bytes(b"call_000000002abc");
        assert_ne!(a, b);
        assert_ne!(hash_bytes(b""), hash_bytes(b"\0"));
        assert_eq!(hash_bytes(b"same text"), hash_bytes(b"same text"));
        // Long inputs (the four-lane part): one byte changed anywhere, or one more byte,
        // changes the hash; no two of these collide.
        let base: Vec<u8> = (0..300u32).map(|n| (n * 7 % 251) as u8).collect();
        let mut seen = std::collections::HashSet::new();
        for len in [63, 64, 65, 95, 96, 97, 200, 300] {
            assert!(seen.insert(hash_bytes(&base[..len])), "length {len}");
            for at in 0..len {
                let mut v = base[..len].to_vec();
                v[at] ^= 0x20;
                assert!(seen.insert(hash_bytes(&v)), "length {len}, byte {at}");
            }
        }
    }
}
