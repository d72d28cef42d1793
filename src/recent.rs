//! Bounded memory for "seen before" checks: a fast 64-bit hash of bytes, and a set of
//! recent hashes in two generations, so that memory stays flat however long the input.

use std::borrow::Borrow;
use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hash, Hasher};

/// A 64-bit hash of bytes: XXH3, whose output changes in about half its bits for any
/// change of the input. A hash of ids and texts stands for them in the "seen before"
/// sets, so two that collide would make a new call look like a copy and drop it; a
/// multiply-rotate hash (FxHash's scheme, used here before) did collide on ids that
/// differ in two bytes eight apart (`call_10092`, `call_10842`).
pub(crate) fn hash_bytes(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(bytes)
}

/// A 64-bit hash of several byte strings together, each with its length, so that no
/// two different lists of parts give the same bytes to hash (`("ab", "c")` is not
/// `("a", "bc")`).
pub(crate) fn hash_parts(parts: &[&[u8]]) -> u64 {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    for part in parts {
        h.update(&(part.len() as u64).to_le_bytes());
        h.update(part);
    }
    h.digest()
}

/// Hashes that are already hashes need no hashing again.
#[derive(Default)]
pub(crate) struct IdentityHasher(u64);

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
pub(crate) struct RecentSet {
    current: Set,
    old: Set,
    cap: usize,
}

/// How many recent entries each check remembers at least.
pub(crate) const RECENT: usize = 1 << 17;

impl Default for RecentSet {
    fn default() -> Self {
        RecentSet::with_cap(RECENT)
    }
}

impl RecentSet {
    pub(crate) fn with_cap(cap: usize) -> RecentSet {
        RecentSet {
            current: Set::default(),
            old: Set::default(),
            cap: cap.max(1),
        }
    }

    /// Adds a hash; `false` when it was seen recently.
    pub(crate) fn insert(&mut self, hash: u64) -> bool {
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

    pub(crate) fn contains(&self, hash: u64) -> bool {
        self.current.contains(&hash) || self.old.contains(&hash)
    }
}

/// A map of the entries among the last `cap` to `2 * cap` inserted, in two
/// generations as [`RecentSet`]: what waits for a later match (a call for its result)
/// without growing with the input. An entry older than that is forgotten, oldest
/// first, a generation at a time.
pub(crate) struct RecentMap<K, V> {
    current: HashMap<K, V>,
    old: HashMap<K, V>,
    cap: usize,
}

/// How many calls wait for their results at least (`--with-results`).
pub(crate) const RECENT_CALLS: usize = 1 << 14;

impl<K: Hash + Eq, V> Default for RecentMap<K, V> {
    fn default() -> Self {
        RecentMap::with_cap(RECENT_CALLS)
    }
}

impl<K: Hash + Eq, V> RecentMap<K, V> {
    pub(crate) fn with_cap(cap: usize) -> RecentMap<K, V> {
        RecentMap {
            current: HashMap::new(),
            old: HashMap::new(),
            cap: cap.max(1),
        }
    }

    /// Adds or replaces an entry (a replaced one counts as new).
    pub(crate) fn insert(&mut self, key: K, value: V) {
        self.old.remove(&key);
        self.current.insert(key, value);
        if self.current.len() >= self.cap {
            let full = std::mem::take(&mut self.current);
            self.current = std::mem::replace(&mut self.old, full);
            self.current.clear();
        }
    }

    pub(crate) fn get<Q>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.current.get(key).or_else(|| self.old.get(key))
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.current.len() + self.old.len()
    }

    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub(crate) fn clear(&mut self) {
        self.current.clear();
        self.old.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recent_map_keeps_the_last_entries_and_forgets_the_oldest() {
        let mut m: RecentMap<String, u64> = RecentMap::with_cap(3);
        for n in 0..3u64 {
            m.insert(format!("call_{n}"), n);
        }
        assert_eq!(m.get("call_0"), Some(&0));
        for n in 3..6u64 {
            m.insert(format!("call_{n}"), n);
        }
        // At most 2 * cap entries; the first generation is gone.
        assert!(m.len() <= 6);
        assert_eq!(m.get("call_0"), None);
        assert_eq!(m.get("call_5"), Some(&5));
        // A replaced entry holds its new value, once.
        m.insert("call_5".into(), 50);
        assert_eq!(m.get("call_5"), Some(&50));
        for n in 0..100_000u64 {
            m.insert(format!("c{n}"), n);
            assert!(m.len() <= 6);
        }
        assert_eq!(m.get("c99999"), Some(&99_999));
        m.clear();
        assert!(m.is_empty());
    }

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

    /// Ids that differ in a few bytes: the multiply-rotate hash used before made
    /// `call_10092` and `call_10842` one hash, and the second call was dropped as a copy.
    #[test]
    fn near_ids_do_not_collide() {
        assert_ne!(hash_bytes(b"call_10092"), hash_bytes(b"call_10842"));
        let mut seen = std::collections::HashSet::new();
        for prefix in ["call_", "toolu_", "chatcmpl-", "msg_0123456789abcdef"] {
            for n in 0..200_000u32 {
                assert!(
                    seen.insert(hash_bytes(format!("{prefix}{n}").as_bytes())),
                    "{prefix}{n}"
                );
            }
        }
    }

    #[test]
    fn parts_are_hashed_with_their_bounds() {
        assert_ne!(hash_parts(&[b"ab", b"c"]), hash_parts(&[b"a", b"bc"]));
        assert_ne!(hash_parts(&[b"a", b""]), hash_parts(&[b"a"]));
        assert_eq!(hash_parts(&[b"x", b"y"]), hash_parts(&[b"x", b"y"]));
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
