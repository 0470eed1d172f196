/*
** coherence.h -- private caches and write-invalidate coherence
** (--private-caches=yes): every thread is a core with its own I1 and D1
** over the one shared LL, and a directory keeps the D1s coherent (MSI).
**
** The model.
**  - Core k is a cs_sim (cs_new_core) whose LL is core 0's.  Accesses go
**    to the running core's cs_sim exactly as with one core; afterwards
**    cc_data() applies coherence to the lines of a data access.  With one
**    core nothing ever changes in the caches, so the counts are exactly
**    those of the single-core model.
**  - Per line some core wrote, the directory keeps the core that wrote
**    it last and may hold the only, modified copy (owner; cleared when
**    another core loads the line), and for every core that LOST the line
**    to another core's store and has not missed on it since, the bytes
**    written by other cores from that store on (lost records).  Which
**    cores hold a line is not kept: a store that needs it asks the other
**    cores' D1s (exact, and nothing to update on every load miss).
**  - A load by core c: if another core owns the line, its copy becomes
**    shared (owner cleared).  A load that hits needs nothing: while c
**    holds a valid copy no other core has written the line.  A load miss
**    of a line without an entry needs nothing either.
**  - A store by c: every other core's D1 copy is invalidated
**    (cs_d1_invalidate: the line leaves that cache as if evicted; one
**    `Inv` per copy that was really there), each such core gets a lost
**    record holding the bytes of this store, the bytes are added to every
**    other lost record of the line, and c becomes its only holder and
**    owner.  A store to a line c already owns needs nothing.  A core that
**    owns a line and reloads it after evicting it owns it again (as MESI's
**    exclusive state: no other core has read it since, so no other copy
**    exists and no invalidation is lost).
**  - A D1 miss of c on a line for which c has a lost record is a
**    coherence miss (the record is consumed): TRUE sharing if the bytes of
**    this access in that line overlap the bytes the record holds (written
**    by other cores since c lost the line, the invalidating store
**    included), FALSE sharing otherwise.  An access crossing two lines is
**    one miss: true if either line is true sharing, else false if either
**    line was lost.  Byte-exact for lines up to 64 bytes; longer lines
**    keep one bit per line_size/64 bytes.
**  - Instruction fetches are not kept coherent (code is not written while
**    it runs, except by JIT compilers); I1 lines are never invalidated.
**  - The directory keeps 2 bytes per line of each 4 MiB chunk of memory
**    some core wrote (the owner, and whether lost records exist), and the
**    lost records in a table of their lines, which a sweep empties of
**    the lines whose records were all consumed.
**
** Cost: nothing unless enabled.  A load hit costs nothing.  A load miss
** and a store read the line's state inline (cc_nothing_to_do: its chunk
** found in a direct-mapped cache of chunks, CC_CHUNK_CACHE entries) and
** are done -- the common case -- unless some core has a lost record of
** the line, a load finds another core its owner, or a store finds c not
** its owner (or the chunk is not in the cache, or the access crosses
** into the next line); a store that changes the owner a look-up in each
** other core's D1.
*/
#ifndef COHERENCE_H
#define COHERENCE_H

#include "cachesim.h"

#define CC_NO_LINE (~(uint64_t)0)

/* A line's state: the core that wrote it last and may hold the only copy,
   + 1 (0: none -- another core loaded it since, nobody wrote it, or a core
   beyond CC_OWNER - 1 did), and CC_LOST while some core has a lost record
   of it.  In chunks of CC_CHUNK_LINES lines. */
typedef uint16_t cc_state;
#define CC_LOST         0x8000u
#define CC_OWNER        0x7fffu
#define CC_CHUNK_BITS   16
#define CC_CHUNK_LINES  (1u << CC_CHUNK_BITS)
#define CC_CHUNK_CACHE  64

/* One core.  Callers keep a pointer to the running core (no lookup per
   access) and treat the fields as private, except sim. */
typedef struct cc_core {
   cs_sim  *sim;                  /* its caches (LL shared) */
   unsigned id;
   cc_state code;                 /* its owner code in a line's state */
} cc_core;

/* The part of the system the inline test reads: the granule and a
   direct-mapped cache of the chunks of line states used lately (a chunk
   nobody wrote has no states: NULL).  Private otherwise. */
typedef struct {
   int line_bits;                 /* D1 line */
   struct {
      uint64_t  key;              /* line >> CC_CHUNK_BITS, or CC_NO_LINE */
      cc_state *state;
   } chunk[CC_CHUNK_CACHE];
} cc_hot;

typedef struct cc_sys cc_sys;

/* A system whose core 0 is first (it stays the caller's: cc_delete does
   not delete it).  First's D1 line size is the coherence granule. */
cc_sys  *cc_new(cs_sim *first);
/* Deletes the directory and every core but core 0. */
void     cc_delete(cc_sys *);
/* Core k, made (cs_new_core) on first use. */
cc_core *cc_core_of(cc_sys *, unsigned k);
/* Whether core k was made. */
int      cc_core_exists(const cc_sys *, unsigned k);
/* Number of core slots (the highest k asked for + 1; some may not exist). */
unsigned cc_n_cores(const cc_sys *);

/* What cc_data returns: bits 0-1 the coherence class of the access's D1
   miss (CC_NONE when it was no coherence miss), the rest the number of
   D1 copies its store invalidated. */
enum { CC_NONE = 0, CC_TRUE = 1, CC_FALSE = 2 };
#define CC_CLASS(res) ((res) & 3u)
#define CC_INV(res)   ((res) >> 2)

unsigned cc__data(cc_sys *, cc_core *, uint64_t a, unsigned size,
                  unsigned r, int is_write);

/* (cc_sys begins with its cc_hot.) */
static inline const cc_hot *cc__hot(const cc_sys *sys)
{
   return (const cc_hot *)(const void *)sys;
}

/* Whether a data access with result r of the core whose owner code is
   code needs no coherence work, which cc_data would find looking at the
   line's state: a load hit; a load miss of a line no other core owns; a
   store of a line the core owns -- its copy the only one -- and in both
   cases no core has a lost record of it.  0 also where it cannot tell at
   once (a chunk not in the cache, an access crossing into the next
   line).  (The running core's code and h can be kept at hand.) */
static inline int cc__quiet(const cc_hot *h, cc_state code, uint64_t a,
                            unsigned size, unsigned r, int is_write)
{
   uint64_t line = a >> h->line_bits, key = line >> CC_CHUNK_BITS;
   unsigned k = (unsigned)key & (CC_CHUNK_CACHE - 1);
   cc_state st;

   if (!is_write && !(r & CS_L1_MISS))
      return 1;
   if (h->chunk[k].key != key || line != (a + size - 1) >> h->line_bits)
      return 0;
   st = h->chunk[k].state ? h->chunk[k].state[line & (CC_CHUNK_LINES - 1)] : 0;
   if (is_write)
      return st == code && code != 0;
   return !(st & CC_LOST) && ((st & CC_OWNER) == 0 || st == code);
}

/* cc__quiet for core c of sys. */
static inline int cc_nothing_to_do(const cc_sys *sys, const cc_core *c,
                                   uint64_t a, unsigned size, unsigned r,
                                   int is_write)
{
   return cc__quiet(cc__hot(sys), c->code, a, size, r, is_write);
}

/* Call after the running core c simulated a data access (cs_read /
   cs_write on c->sim) with result r.  A store's invalidations evict other
   cores' lines under c's collect flag (cs_set_collect), so keep it
   current before calling. */
static inline unsigned cc_data(cc_sys *sys, cc_core *c, uint64_t a,
                               unsigned size, unsigned r, int is_write)
{
   if (cc_nothing_to_do(sys, c, a, size, r, is_write))
      return 0;
   return cc__data(sys, c, a, size, r, is_write);
}

/* Every core's caches: cs_flush (every L1, then the LL); cs_clear; and
   the directory forgets everything (the caches are empty). */
void cc_flush(cc_sys *);
void cc_clear(cc_sys *);
/* Collection state of every core (evictions of one core's lines can come
   from another core's store: the running core's state applies). */
void cc_set_collect(cc_sys *, int collecting);

/* Statistics: entries of lines with lost records now and at most, their
   sweeps, lost records, bytes of line states. */
typedef struct {
   uint64_t entries, entries_max, sweeps, lost_now, state_bytes;
} cc_stats;
void cc_get_stats(const cc_sys *, cc_stats *);

#endif /* COHERENCE_H */
