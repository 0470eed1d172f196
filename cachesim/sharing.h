/*
** sharing.h -- order-independent estimate of false sharing (--sharing=yes).
**
** The model (thesis "extensions", section 4.2.2): a run is cut into
** parallel segments (at barriers); within a segment the order of the
** threads' accesses is unknown, so only counts are kept: per cache line,
** per thread, per offset and size in the line, loads and stores.  At the
** end of a segment each line touched by it gets
**
**   phi_s   = 2*M - 1 (0 if M = 0), the worst-case number of coherence
**             transactions: M is the largest number of disjoint pairs of
**             accesses by two different threads of which at least one is
**             a store (each pair is one ping-pong; chaining the pairs
**             gives 2*M - 1 transfers after the first, compulsory, one).
**             For two threads this is the thesis' equation (1),
**             2*[min(S0,L1) + min(S1,L0)] + 2*max(min(S0-L1, S1-L0), 0) - 1,
**             and in closed form for any number of threads
**             M = min(S, floor(N/2), min over t of (N - N_t))
**             (S all stores, N all accesses, N_t those of thread t).
**   theta_s = 2 * sum over (offset, size) of M1, the likely data
**             exchanges: M1 is the largest number of disjoint pairs of a
**             store and a load by different threads at the same offset
**             with the same size, min(S, L, min over t of (S - S_t +
**             L - L_t)) within that (offset, size); for two threads the
**             thesis' equation (2), 2*sum[min(S0,L1) + min(S1,L0)].
**
** Segments end at barriers (sh_end_segment) and, following the
** happens-before edges of thread creation and join, where one thread
** continues alone (sh_end_fork_join, sh_thread_*).
**
** Equations (4) and (5) add, for each pair of consecutive segments, one
** event to both phi and theta of every line the two segments touch.  We
** add it only where a transfer is possible at all: some thread of the
** second segment is not the only thread of the first (the set of threads
** of both has two or more members) and one of the two segments stores
** to the line.  (5)'s sum "from s = 0" is read as (4)'s, from the first
** pair on; none is added across a fork or join cut.  Over the whole
** run, phi' = max(phi - theta, 0) per line.
**
** Code positions (the caller's instruction addresses) are part of the
** counting key, so that each line keeps the positions that touched it in
** the segments where it was shared (two or more threads), with their
** access counts, at most SH_MAX_POS of them (the rest are counted as
** "other").
**
** Pure C like cachesim.c: memory from cs_alloc/cs_free (cachesim.h).
*/
#ifndef SHARING_H
#define SHARING_H

#include <stdint.h>

#define SH_MAX_POS 8            /* code positions kept per line */
#define SH_MAX_TID 0xffff       /* thread ids above are folded (tid & 0xffff) */

typedef struct {
   uint64_t pos;               /* code position (instruction address) */
   uint64_t count;             /* accesses from it in shared segments */
} sh_pos;

/* What a line accumulates over the run, kept only for lines that were
   shared (two or more threads in a segment, or a transfer across a
   barrier): private lines cost only the model's per-segment counters. */
typedef struct {
   uint64_t line;              /* line number: address >> line bits */
   uint64_t phi, theta;        /* equations (4) and (5) */
   uint64_t loads, stores;     /* accesses in segments where it was shared */
   uint64_t other_pos;         /* accesses of positions beyond SH_MAX_POS */
   sh_pos  *pos;               /* the positions with the most accesses */
   uint32_t npos, pos_cap;     /* (most lines have few: room grows) */
   uint32_t first_shared;      /* segment in which it was first shared */
   void    *tag;               /* the caller's (e.g. the data object's name) */
   uint32_t ntouch, touch_cap; /* which bytes each thread's code touched */
   uint64_t *touch;            /* (sh_touch_at) */
} sh_line;

typedef struct sh_model sh_model;

sh_model *sh_new(uint32_t line_size);          /* a power of two, 8..256 */
void      sh_delete(sh_model *);

/* One data access of thread tid; an access across a line boundary
   counts once in each line, with its part's offset and size. */
void      sh_access(sh_model *, uint32_t tid, uint64_t addr, uint32_t size,
                    int is_store, uint64_t pos);

/* A read-modify-write: a load and a store of the same bytes, counted as
   both (one look-up). */
void      sh_modify(sh_model *, uint32_t tid, uint64_t addr, uint32_t size,
                    uint64_t pos);

/* The accesses of a run of code handed over at once: the same as
   sh_access and sh_modify on each, in order, and cheaper.  What an
   instruction's access is apart from its address is its site, which a
   caller keeps for each instruction: the code position as its number
   (sh_position), the size, the kinds (1 a load, 2 a store, 3 a
   read-modify-write).  An address SH_SKIPPED is an access that did not
   happen (a guarded one whose guard was false). */
typedef struct {
   uint32_t pos_id;
   uint16_t size;
   uint16_t kinds;
} sh_site;
#define SH_SKIPPED (~(uint64_t)0)
uint32_t  sh_position(sh_model *, uint64_t pos);
void      sh_access_block(sh_model *, uint32_t tid, const sh_site *site,
                          const uint64_t *addr, uint32_t n);

/* Ends the current segment (a barrier); nothing happens if it is empty. */
void      sh_end_segment(sh_model *);

/* Ends the current segment at a fork or a join, where one thread
   continues alone or starts others (the entry or the end of an OpenMP
   parallel region; sh_thread_* call it themselves): no transfer across
   it is counted (equations (4) and (5) join parallel sections; what one
   thread hands over to threads it starts, or gets from threads it
   joined, is the data exchange of a fork or join by construction, and
   counting it, as much in theta as in phi, would only list every line a
   program initialises before its threads start). */
void      sh_end_fork_join(sh_model *);

/* The happens-before edges of thread creation and join (thread ids as
   sh_access's).  A thread's work before it creates another happens
   before all the new thread does; a thread's whole work happens before
   what its joiner does after the join.  The model keeps segments global
   (the thesis' formulas count the accesses of a segment as concurrent),
   so an edge ends the segment where it orders *all* of the segment
   before all that follows: at a creation or a join after which the
   acting thread runs alone and has joined, directly or through the
   threads it joined or its creators, every other thread that accessed
   memory in the segment.  That is the serial part of a program cut
   from its parallel parts (initialisation before the threads start,
   results read after they are joined); an edge between threads that
   keep running beside others orders too little of the segment to cut
   it, and changes nothing.  Both return 1 if they ended the segment.
   Ids above 63 (or one reused while its earlier thread's work in the
   segment is unjoined) disable these cuts until the next barrier. */
#define SH_NO_THREAD 0xffffffffu                 /* the first thread's parent */
int       sh_thread_created(sh_model *, uint32_t parent, uint32_t child);
void      sh_thread_exited(sh_model *, uint32_t tid);
int       sh_thread_joined(sh_model *, uint32_t joiner, uint32_t joined);

/* A function naming the data at an address (for the caller's reports),
   called when a second thread touches a line within a segment, the first
   time that happens to the line: then the data is surely allocated.  Its
   result becomes the line's tag. */
typedef void *(*sh_namer)(void *ctx, uint64_t addr);
void      sh_set_namer(sh_model *, sh_namer, void *ctx);

/* The lines first shared (two or more threads, or a transfer across the
   barrier before it) in the segment that the last sh_end_segment ended, so the caller can name their data while it
   is still allocated (if the namer has not named it yet, tag is 0):
   indices for sh_line_at. */
uint32_t  sh_fresh_shared(const sh_model *, const uint32_t **idx);

/* Results (after sh_end_segment for the last segment): the shared lines. */
uint32_t       sh_nlines(const sh_model *);
const sh_line *sh_line_at(const sh_model *, uint32_t i);
uint64_t       sh_memory(const sh_model *);     /* bytes allocated (the
                                                   packed records at their peak) */
void           sh_set_tag(sh_model *, uint32_t i, void *tag);
uint64_t       sh_phi_prime(const sh_line *);

/* The bytes of a shared line that a thread's code position loaded and
   stored in the segments where the line was shared, as bit sets of the
   line's bytes (bit b of word b / 64; line size / 64 words, at least
   one).  One set per (thread, position), at most SH_MAX_TOUCH positions
   per line; the accesses of further positions go to their thread's set
   of position SH_OTHER_POS. */
#define SH_MAX_TOUCH 16
#define SH_OTHER_POS 0
uint32_t       sh_touches(const sh_line *);
void           sh_touch_at(const sh_model *, const sh_line *, uint32_t k,
                           uint64_t *pos, uint32_t *tid,
                           const uint64_t **loaded, const uint64_t **stored);
uint32_t       sh_segments(const sh_model *);   /* non-empty segments ended */
uint32_t       sh_nthreads(const sh_model *);   /* distinct thread ids seen */
uint32_t       sh_line_size(const sh_model *);

/* What the model's tables hold (for -v and perf/RESULTS-sharing.md):
   line records (every line touched), full records (lines that two
   threads touched in a segment, or whose history left the trie: their
   counters are counted in sh_memory only), the trie's largest size in a
   segment, and how many histories were replayed into counters. */
typedef struct {
   uint64_t lines, line_bytes;
   uint64_t fulls, full_bytes;
   uint64_t peak_nodes, node_bytes;
   uint64_t replays;
   uint64_t packed;             /* histories that went to packed records */
   uint64_t packs_now, peak_packs, peak_pack_bytes;
   uint64_t peak_pack_used;     /* of which in records (the rest: space
                                   left by records that grew, until the
                                   store compacts) */
   uint64_t pack_grows, pack_grows_in_place; /* packed records that
                                   grew, and of those the ones that grew
                                   where they were */
   uint64_t pack_compactions, pack_compact_moved; /* the store's
                                   compactions, with the bytes they moved */
   uint64_t counters, counter_bytes; /* the full records' counters at the
                                   end (of the last segment), and the
                                   bytes of their arrays past the inline
                                   ones */
   uint64_t results, result_bytes;  /* shared lines' results, with their
                                   positions and touched bytes */
} sh_stats;
sh_stats  sh_get_stats(const sh_model *);

/* For the unit test: at most this many nodes of one-thread histories in
   a segment (1: none, every access counted at once; 0: the default
   budget). */
void      sh_set_history_limit(sh_model *, uint32_t nodes);

/* For the unit test: a line whose history left the trie keeps its
   thread's counts packed (counts of at most 255, at most 127 code sites:
   sharing_pack.h) until a count or site past these limits (at most 255
   and 127), or a second thread, moves it to counters; 0: never packed. */
void      sh_set_packed_limits(sh_model *, uint32_t max_count, uint32_t max_sites);

/* For the unit test: the largest count a line's counter holds before
   it carries the rest (0: the default, 2^32 - 1). */
void      sh_set_count_limit(sh_model *, uint32_t limit);

/* The per-line formulas on one segment's counts, exposed for the unit
   test: n threads with loads[t], stores[t] (all offsets), and for theta
   the same per (offset, size) group. */
uint64_t  sh_pairs_any(uint32_t n, const uint64_t *loads, const uint64_t *stores);
uint64_t  sh_pairs_store_load(uint32_t n, const uint64_t *loads,
                              const uint64_t *stores);

#endif /* SHARING_H */
