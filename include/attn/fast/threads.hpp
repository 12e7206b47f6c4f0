// attn/fast/threads.hpp — how many threads the fast path (attn::fast) computes with.
//
// Why the fast path has its own threads: its work splits naturally into independent pieces — the
// rows of a projection, the (batch, head, query tile) blocks of the attention, the rows of a
// LayerNorm — and each piece is best computed by one thread calling a single-threaded sgemm.
// Letting OpenBLAS thread each product instead was measured slower on two cores
// (docs/performance.md): its threads spin between calls and take the CPU from the next step.
//
// The pool. One process-wide pool of worker threads, started on first use and kept: a call hands
// its pieces to the waiting workers (no thread is created per call or per step), works on them
// itself too, and returns when all are done. An exception thrown by a piece (std::bad_alloc, an
// error found in the data) stops the pieces not yet started and is rethrown by the call, on the
// caller's thread; it never terminates the process. The pool runs one call at a time: a call made
// while another thread's call is running (or from inside a piece) runs on its own thread alone —
// correct, only not parallel. Use one workspace per concurrent caller (attn/fast/*.hpp).
//
// OpenBLAS. The workers call OpenBLAS's sgemm concurrently, so OpenBLAS must not start threads of
// its own inside those calls. When the pool is created — by the first fast-path call or by
// set_threads — the fast path sets OpenBLAS's process-wide thread count to 1, once; it never sets
// it again per call and never restores it (a per-call set-and-restore races between callers).
// Other BLAS calls of the process (the lesson path's dgemm) then run on one thread. A program
// that raises OpenBLAS's count again afterwards still gets the right numbers from the fast path,
// only slower (OpenBLAS's threads and the workers then compete for the cores).
//
//   attn::fast::set_threads(2);     // two workers: the caller and one pool thread
//   attn::fast::threads();          // 2
#pragma once

namespace attn::fast {

/// Uses `threads` threads for every later fast-path call (the calling thread is one of them):
/// replaces the pool when the count changes (a call running on the old pool finishes on it).
/// Throws InputError when threads is below 1 or above 1024.
void set_threads(int threads);

/// OpenBLAS's own thread count, for the BLAS calls made outside the pool: the lesson path's dgemm
/// (attn train copy --threads on the double path). A pool created afterwards sets it back to 1.
/// Does nothing when the build's BLAS is not OpenBLAS. InputError outside 1 … 1024.
void set_blas_threads(int threads);

/// The pool's thread count. Before set_threads is called: the number of physical cores this
/// process may run on (attn/fast/machine.hpp; hardware threads of one core count once).
int threads();

}  // namespace attn::fast
