//! Per-thread arenas for one-shot parses.
//!
//! A cold analysis parses each Go file once, reads its facts and throws the tree away. With a
//! general-purpose allocator that costs two things besides parsing: a `malloc` for every
//! subtree and parse-stack node (whose free-list pops miss the cache once other work has run
//! between parses), and `ts_tree_delete`, a walk over the whole tree that frees it node by
//! node. For such parses ([`crate::GoSyntax::parse_once`]) tree-sitter's allocation hooks bump
//! a pointer in a per-thread arena instead, and afterwards the parser and the tree are
//! *forgotten* and the arena is reset in O(1). On the Go standard library that made parse +
//! extraction + freeing 8–9% cheaper (a single-threaded harness, three interleaved runs).
//!
//! Invariants:
//! - Only the thread that holds a window ([`begin`]…[`end`]) allocates from its arena, and
//!   only while the window is active (the parser's creation and its parse). Everything else
//!   tree-sitter allocates — on this thread outside the window, or on any other thread —
//!   comes from mimalloc as usual.
//! - `free` of an arena block is a no-op; `realloc` of one copies it (into the arena while
//!   the window is active, else into mimalloc). Arena blocks are recognised by address: all
//!   arenas are slots of one reserved region.
//! - When a window's allocations did not fit its slot, some of them came from mimalloc: the
//!   caller then drops the parser and the tree normally (which frees those and skips the
//!   arena ones) instead of forgetting them.
//! - Arenas exist only once [`crate::alloc::use_for_tree_sitter`] installed the hooks, on
//!   Linux, where the reservation is not charged against a strict overcommit limit, and
//!   while a slot is free; otherwise [`begin`] says no and the caller parses the usual way.

use std::cell::Cell;
use std::os::raw::c_void;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Arena slots (threads that can hold an arena at once); others parse the usual way.
const SLOTS: usize = 8;
/// Address space per slot. The largest file of the Go standard library (3 MB of generated
/// code) peaks at ~100 MB; a window that needs more falls back to mimalloc.
const SLOT_BYTES: usize = 512 << 20;
/// Memory a slot keeps between windows; beyond it a reset returns pages to the system.
const KEEP_BYTES: usize = 16 << 20;
/// Transparent huge page size (x86-64, arm64 with 4 KiB base pages); slots and
/// [`KEEP_BYTES`] are multiples of it.
const HUGE_PAGE: usize = 2 << 20;
/// Every block starts with its capacity (for `realloc` and `free`), padded to keep 16-byte
/// alignment.
const HEADER: usize = 16;
/// Blocks of up to `CLASSES * 16` bytes freed inside a window are reused by later
/// allocations of the same rounded size in it (tree-sitter frees many parse-stack nodes and
/// subtrees while parsing): the window of std's largest file (3 MB) peaks at 60 MB instead of
/// 101 MB without reuse.
const CLASSES: usize = 32;

/// Base address of the reserved region (0: none; arenas are off).
static REGION: AtomicUsize = AtomicUsize::new(0);
static RESERVED: std::sync::Once = std::sync::Once::new();
static CLAIMED: [AtomicBool; SLOTS] = [const { AtomicBool::new(false) }; SLOTS];
/// Set once the hooks below are tree-sitter's allocator.
static HOOKS: AtomicBool = AtomicBool::new(false);

/// The hot per-thread state (no destructor, so the allocation path stays a plain TLS read).
struct Hot {
    /// A window is open (from [`begin`] to [`end`]); it allocates only while `active`.
    open: Cell<bool>,
    active: Cell<bool>,
    /// Start, next free byte and end of this thread's slot (all 0 before it has one).
    base: Cell<usize>,
    cur: Cell<usize>,
    end: Cell<usize>,
    overflowed: Cell<bool>,
    /// Keep every page between windows (until the thread exits), not just [`KEEP_BYTES`].
    hold: Cell<bool>,
    /// Bytes this thread's window ends returned to the system (a testing aid).
    released: Cell<usize>,
    /// Per size class (16, 32, … bytes), the last freed block of the window: each holds the
    /// address of the one freed before it (0 ends the list).
    freed: [Cell<usize>; CLASSES],
}

thread_local! {
    static HOT: Hot = const {
        Hot {
            open: Cell::new(false),
            active: Cell::new(false),
            base: Cell::new(0),
            cur: Cell::new(0),
            end: Cell::new(0),
            overflowed: Cell::new(false),
            hold: Cell::new(false),
            released: Cell::new(0),
            freed: [const { Cell::new(0) }; CLASSES],
        }
    };
    /// This thread's slot; given back (and its pages returned) when the thread exits.
    static SLOT: SlotGuard = const { SlotGuard { index: Cell::new(usize::MAX) } };
}

struct SlotGuard {
    index: Cell<usize>,
}

impl Drop for SlotGuard {
    fn drop(&mut self) {
        let index = self.index.get();
        if index < SLOTS {
            // The thread is exiting: no window of it is open, and it can claim no slot again
            // (`SLOT` is gone), so it must not bump into this one either.
            HOT.with(|h| {
                h.base.set(0);
                h.cur.set(0);
                h.end.set(0);
            });
            let base = REGION.load(Ordering::Acquire) + index * SLOT_BYTES;
            // SAFETY: the slot lies inside the region mapped by `reserve`; nothing of this
            // thread's windows is referenced any more.
            unsafe { release_pages(base, SLOT_BYTES) };
            CLAIMED[index].store(false, Ordering::Release);
        }
    }
}

pub(crate) fn hooks_installed() {
    HOOKS.store(true, Ordering::Release);
}

/// Start a window on this thread: tree-sitter allocations go to its arena until [`pause`].
/// Returns false (and changes nothing) when no arena is available or a window is open (a
/// nested window would reuse the outer one's blocks).
pub(crate) fn begin() -> bool {
    if !ready() {
        return false;
    }
    HOT.with(|h| {
        h.overflowed.set(false);
        h.open.set(true);
        h.active.set(true);
    });
    true
}

/// Stop allocating from the arena (the window's blocks stay valid until [`end`]).
pub(crate) fn pause() {
    HOT.with(|h| h.active.set(false));
}

/// Whether a block of the current window had to come from mimalloc.
pub(crate) fn overflowed() -> bool {
    HOT.with(|h| h.overflowed.get())
}

/// End the window: every block it allocated is free again.
///
/// # Safety
/// Nothing may use a block of the window any more (its parser and trees are forgotten or
/// dropped).
pub(crate) unsafe fn end() {
    HOT.with(|h| {
        let base = h.base.get();
        h.active.set(false);
        h.open.set(false);
        let used = h.cur.get() - base;
        if used > KEEP_BYTES && !h.hold.get() {
            // SAFETY: inside this thread's slot; the caller guarantees nothing is used.
            unsafe { release_pages(base + KEEP_BYTES, used - KEEP_BYTES) };
            h.released.set(h.released.get() + (used - KEEP_BYTES));
        }
        h.cur.set(base);
        h.freed.iter().for_each(|f| f.set(0));
    });
}

/// Keep this thread's arena pages between windows until it exits (see
/// [`crate::alloc::hold_parse_arena`]).
pub(crate) fn hold() {
    HOT.with(|h| h.hold.set(true));
}

/// Bytes this thread's window ends returned to the system so far.
pub(crate) fn released() -> usize {
    HOT.with(|h| h.released.get())
}

/// Whether this thread can open a window: the hooks are installed, no window is open, and it
/// holds a slot (claimed now if it had none).
fn ready() -> bool {
    HOOKS.load(Ordering::Acquire)
        && !HOT.with(|h| h.open.get())
        && (HOT.with(|h| h.end.get()) != 0 || claim_slot())
}

fn claim_slot() -> bool {
    RESERVED.call_once(reserve);
    let region = REGION.load(Ordering::Acquire);
    if region == 0 {
        return false;
    }
    for (index, claimed) in CLAIMED.iter().enumerate() {
        if claimed.compare_exchange(false, true, Ordering::AcqRel, Ordering::Relaxed).is_ok() {
            let base = region + index * SLOT_BYTES;
            let registered = SLOT.try_with(|s| s.index.set(index));
            if registered.is_err() {
                // This thread is exiting: it could never give the slot back.
                claimed.store(false, Ordering::Release);
                return false;
            }
            HOT.with(|h| {
                h.base.set(base);
                h.cur.set(base);
                h.end.set(base + SLOT_BYTES);
            });
            return true;
        }
    }
    false
}

#[cfg(target_os = "linux")]
fn reserve() {
    // Address space only: pages are committed when first touched (MAP_NORESERVE). Under
    // strict overcommit accounting (mode 2) the kernel would charge the whole reservation
    // against the commit limit, starving other allocations: no arenas there.
    if strict_overcommit() {
        return;
    }
    // SAFETY: a fresh anonymous mapping; no existing memory is affected.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            SLOTS * SLOT_BYTES + HUGE_PAGE,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
            -1,
            0,
        )
    };
    if p != libc::MAP_FAILED {
        // Slots start on a huge-page boundary and are backed by transparent huge pages where
        // the system allows them (`madvise` mode included): a slot's memory is reused from
        // parse to parse, so each 2 MB page is zeroed once and then saves TLB misses and page
        // faults on every parse (a cold std index: 156k page faults → 122k). The advice is
        // only a hint; without it the region works the same with 4 KiB pages.
        let base = (p as usize).next_multiple_of(HUGE_PAGE);
        // SAFETY: a range of the mapping just made.
        unsafe { libc::madvise(base as *mut c_void, SLOTS * SLOT_BYTES, libc::MADV_HUGEPAGE) };
        REGION.store(base, Ordering::Release);
    }
}

#[cfg(not(target_os = "linux"))]
fn reserve() {}

/// Whether the kernel accounts overcommit strictly (`vm.overcommit_memory = 2`).
#[cfg(target_os = "linux")]
fn strict_overcommit() -> bool {
    std::fs::read_to_string("/proc/sys/vm/overcommit_memory").is_ok_and(|m| m.trim() == "2")
}

/// Give the pages of `[start, start + len)` back to the system (they read as zero after).
///
/// # Safety
/// The range lies in the region and none of it is in use.
unsafe fn release_pages(start: usize, len: usize) {
    #[cfg(target_os = "linux")]
    {
        let page = 4096;
        let from = start.div_ceil(page) * page;
        let to = (start + len) / page * page;
        if to > from {
            // SAFETY: per the caller, an unused range of our own mapping.
            unsafe { libc::madvise(from as *mut c_void, to - from, libc::MADV_DONTNEED) };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (start, len);
}

fn in_region(p: *mut c_void) -> bool {
    let base = REGION.load(Ordering::Relaxed);
    base != 0 && (p as usize).wrapping_sub(base) < SLOTS * SLOT_BYTES
}

/// A block of `size` bytes from this thread's arena, or null when no window is active or it
/// does not fit (then the window is marked overflowed).
fn bump(size: usize) -> *mut c_void {
    HOT.with(|h| {
        if !h.active.get() {
            return std::ptr::null_mut();
        }
        let Some(capacity) = size.max(1).checked_add(15).map(|n| n & !15) else {
            h.overflowed.set(true);
            return std::ptr::null_mut();
        };
        if let Some(list) = h.freed.get(capacity / 16 - 1) {
            let block = list.get();
            if block != 0 {
                // SAFETY: a block of this window of exactly `capacity` bytes, freed: its first
                // word holds the next freed block of the class.
                list.set(unsafe { (block as *const usize).read() });
                return block as *mut c_void;
            }
        }
        let cur = h.cur.get();
        match capacity.checked_add(HEADER) {
            Some(need) if need <= h.end.get() - cur => {
                // SAFETY: `[cur, cur + need)` is inside this thread's slot and unused.
                unsafe { (cur as *mut usize).write(capacity) };
                h.cur.set(cur + need);
                (cur + HEADER) as *mut c_void
            }
            _ => {
                h.overflowed.set(true);
                std::ptr::null_mut()
            }
        }
    })
}

pub(crate) unsafe extern "C" fn malloc(size: usize) -> *mut c_void {
    let p = bump(size);
    if p.is_null() {
        // SAFETY: plain allocation.
        unsafe { libmimalloc_sys::mi_malloc(size) }
    } else {
        p
    }
}

pub(crate) unsafe extern "C" fn calloc(count: usize, size: usize) -> *mut c_void {
    let Some(total) = count.checked_mul(size) else { return std::ptr::null_mut() };
    let p = bump(total);
    if p.is_null() {
        // SAFETY: plain allocation.
        unsafe { libmimalloc_sys::mi_calloc(count, size) }
    } else {
        // SAFETY: `p` is a fresh block of `total` bytes (an arena may hold old bytes).
        unsafe { std::ptr::write_bytes(p as *mut u8, 0, total) };
        p
    }
}

pub(crate) unsafe extern "C" fn realloc(p: *mut c_void, size: usize) -> *mut c_void {
    if p.is_null() {
        // SAFETY: as malloc.
        return unsafe { malloc(size) };
    }
    if !in_region(p) {
        // SAFETY: `p` came from mimalloc (every other block is in the region).
        return unsafe { libmimalloc_sys::mi_realloc(p, size) };
    }
    // SAFETY: an arena block is preceded by its capacity.
    let old = unsafe { ((p as usize - HEADER) as *const usize).read() };
    if size <= old {
        return p;
    }
    // SAFETY: as malloc.
    let q = unsafe { malloc(size) };
    if !q.is_null() {
        // SAFETY: both blocks hold at least `old` bytes and do not overlap; `p` is not used
        // after it is copied.
        unsafe {
            std::ptr::copy_nonoverlapping(p as *const u8, q as *mut u8, old);
            free(p);
        }
    }
    q
}

pub(crate) unsafe extern "C" fn free(p: *mut c_void) {
    if !in_region(p) {
        // SAFETY: `p` is null or came from mimalloc.
        unsafe { libmimalloc_sys::mi_free(p) };
        return;
    }
    // A block of this thread's open window goes on its size class's list (a block of another
    // thread's arena, or of no open window, is simply dropped: its window resets it).
    HOT.with(|h| {
        let at = p as usize;
        if !h.open.get() || at < h.base.get() || at >= h.cur.get() {
            return;
        }
        // SAFETY: an arena block is preceded by its capacity.
        let capacity = unsafe { ((at - HEADER) as *const usize).read() };
        if let Some(list) = h.freed.get(capacity / 16 - 1) {
            // SAFETY: the block is free and holds at least one word.
            unsafe { (at as *mut usize).write(list.get()) };
            list.set(at);
        }
    })
}

/// Testing aid (see [`crate::alloc::cap_arena_for_tests`]).
pub(crate) fn cap(bytes: usize) -> bool {
    if !ready() {
        return false;
    }
    HOT.with(|h| h.end.set(h.base.get() + bytes.min(SLOT_BYTES)));
    true
}

/// Testing aid (see [`crate::alloc::arena_slots_in_use`]).
pub(crate) fn slots_in_use() -> usize {
    CLAIMED.iter().filter(|c| c.load(Ordering::Acquire)).count()
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    /// The `VmFlags` line of the mapping of this process that holds `addr`.
    fn vm_flags(addr: usize) -> Option<String> {
        let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
        let mut inside = false;
        for line in smaps.lines() {
            if let Some((range, _)) = line.split_once(' ').filter(|(r, _)| r.contains('-')) {
                let (start, end) = range.split_once('-')?;
                let (start, end) = (usize::from_str_radix(start, 16), usize::from_str_radix(end, 16));
                inside = matches!((start, end), (Ok(s), Ok(e)) if s <= addr && addr < e);
            } else if inside && line.starts_with("VmFlags:") {
                return Some(line.to_string());
            }
        }
        None
    }

    #[test]
    fn slots_start_on_huge_pages_and_ask_for_them() {
        if strict_overcommit() {
            return; // no arenas under strict overcommit (see `reserve`)
        }
        if !std::path::Path::new("/sys/kernel/mm/transparent_hugepage").exists() {
            return; // a kernel without transparent huge pages refuses the advice
        }
        assert!(claim_slot(), "a free slot");
        let base = REGION.load(Ordering::Acquire);
        assert_ne!(base, 0, "the region is reserved");
        assert_eq!(base % HUGE_PAGE, 0, "slots start on a huge-page boundary");
        assert_eq!(SLOT_BYTES % HUGE_PAGE, 0);
        assert_eq!(KEEP_BYTES % HUGE_PAGE, 0);
        let flags = vm_flags(base).expect("the region is a mapping of this process");
        assert!(flags.split_whitespace().any(|f| f == "hg"), "MADV_HUGEPAGE on the region: {flags}");
        let last = base + SLOTS * SLOT_BYTES - 1;
        assert!(vm_flags(last).is_some_and(|f| f.split_whitespace().any(|f| f == "hg")), "to its end");
    }
}
