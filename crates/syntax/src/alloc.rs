//! One allocator for the whole process: binaries declare [`GlobalAllocator`] as their
//! `#[global_allocator]` and call [`use_for_tree_sitter`] first thing in `main`, so that the
//! tree-sitter C library (which allocates every subtree and parse-stack node) and the Rust
//! code share mimalloc instead of glibc malloc, which measurably dominated the profile of a
//! cold index (arena consolidation and free-list walks).
//!
//! [`use_for_tree_sitter`] also delays mimalloc's purging of free memory from one second to
//! [`PURGE_DELAY_MS`]: returning memory unused for a second to the OS (`MADV_DONTNEED`) and
//! faulting it back in, zeroed, when the next parse or fragment needs it was ~7% of the CPU
//! of a cold index of the Go standard library (80k page faults; never purging: 30k). Within
//! an indexing run freed memory is simply reused; [`release_free_memory`] still returns
//! everything free at once (a purge is only delayed, never disabled, so it stays scheduled).

pub use mimalloc::MiMalloc as GlobalAllocator;

/// How long freed memory stays with the process before mimalloc returns it to the OS
/// (mimalloc's default: 1 s): longer than a cold index of a large tree.
pub const PURGE_DELAY_MS: std::os::raw::c_long = 60_000;

/// Route tree-sitter's C allocations through mimalloc. Call it at the start of `main`,
/// before any tree-sitter object exists; later calls are no-ops.
pub fn use_for_tree_sitter() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // `mi_option_purge_delay` (the crate exports no constant for it). Not -1: that
        // disables purging, so `release_free_memory` could not return anything.
        const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;
        // SAFETY: setting an option is always sound; mimalloc reads it on each purge.
        unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, PURGE_DELAY_MS) };
        // SAFETY: the four functions are one allocator family (mimalloc, or a per-thread
        // arena during a one-shot parse: `crate::arena`), never return null for non-zero
        // sizes unless out of memory (as malloc), align like malloc (16 bytes), and `Once`
        // runs this before the caller creates any tree-sitter object.
        unsafe {
            tree_sitter::set_allocator(Some(tree_sitter::Allocator {
                malloc: crate::arena::malloc,
                calloc: crate::arena::calloc,
                realloc: crate::arena::realloc,
                free: crate::arena::free,
            }))
        }
        crate::arena::hooks_installed();
    });
}

/// Ask the allocator to return free memory to the system now (including pages freed by
/// threads that have exited, such as a finished cold analysis's workers). Long-lived
/// servers call it after dropping a large amount of data; it never frees live memory.
pub fn release_free_memory() {
    // SAFETY: `mi_collect` only walks the allocator's own free lists and segments.
    unsafe { libmimalloc_sys::mi_collect(true) }
}

/// Declare the calling thread a worker that exits once its batch of parses is done (the
/// threads of a cold analysis): its parse arena then keeps the pages of its largest one-shot
/// parse until the thread exits, instead of returning all but 16 MiB after each parse. A
/// later large parse on it then does not fault those pages in again: on the Go standard
/// library, 12 windows beyond 16 MiB returned 215 MB, refaulted as ~29k of a cold index's
/// ~198k page faults. Long-lived threads (servers) should not call it: they would keep the
/// memory of the largest file they ever parsed.
pub fn hold_parse_arena() {
    crate::arena::hold()
}

/// Testing aid: bytes this thread's one-shot parses returned to the system when they ended.
#[doc(hidden)]
pub fn arena_bytes_released() -> usize {
    crate::arena::released()
}

/// Testing aid: limit this thread's parse arena to `bytes`, so that a one-shot parse needing
/// more falls back to mimalloc (`GoSyntax::parse_once`). False when there is no arena.
#[doc(hidden)]
pub fn cap_arena_for_tests(bytes: usize) -> bool {
    crate::arena::cap(bytes)
}

/// Testing aid: how many threads hold a parse arena now (a thread gives its own back when it
/// exits).
#[doc(hidden)]
pub fn arena_slots_in_use() -> usize {
    crate::arena::slots_in_use()
}
