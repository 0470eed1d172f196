/*
** lrustack.h -- an LRU stack of cache lines that reports, for every
** reference, which distance bucket the line was in.
**
** The model: the stack holds the `capacity` most recently referenced
** distinct lines, most recent first.  The *position* of a line is the
** number of distinct other lines referenced since its previous reference
** (its LRU stack distance): 0 for the most recent line.  Positions are
** grouped into buckets by edges 0 = e[0] < e[1] < ... < e[K] = capacity;
** bucket j holds positions e[j] .. e[j+1]-1.  A reference reports the
** bucket of the line's position and moves the line to position 0; a line
** not in the stack (never seen, or pushed beyond `capacity`) is reported
** as LS_ABSENT, inserted at position 0, and the line at position
** capacity-1 leaves if the stack was full.
**
** Two uses:
**  - one bucket (K = 1): a fully associative LRU cache of `capacity`
**    lines; LS_ABSENT is its miss (the miss classifier's shadow caches);
**  - power-of-two edges 1, 2, 4, ... below capacity: the reuse-distance
**    histogram (reusedist.c).
**
** Method: a timestamp ring, not a linked list.  Every reference gets the
** next time t; the stack's order is the order of the lines' last times.
** A ring indexed by t holds the line referenced at t and a bit "this is
** still the line's last reference" (valid); a line table gives a line's
** last time; a marker per full bucket holds the time of the bucket's deepest
** line.  A line's bucket is the first whose marker is not newer than its
** time; after a reference each marker below the line's bucket moves to the
** next valid time (the bucket's deepest line went one position deeper,
** into the next bucket).  So a reference at distance d costs one stamp
** read and write plus O(log2 d) marker moves over the valid bits (1 bit
** per time, in the host's cache); a linked list would touch the line's
** node, its hash chain and both of its neighbours, each a host cache miss
** once the stack outgrows the host's caches.  When the ring is full it is
** compacted (times renumbered), or doubled if more than a quarter of it is
** valid: amortised O(1) per reference.  Exact.
**
** The line table takes one of two forms, so that it stays small enough
** for the host's caches:
**  - a small stack (at most LS_SMALL lines, the L1 shadows): an open-
**    addressing hash table of the lines in the stack, sized by the
**    capacity whatever the program's footprint;
**  - a large one (the LL shadow, the reuse-distance stack): a dense array
**    of 32-bit stamps per chunk of 4096 line numbers, chunks found through
**    a small hash table.  4 bytes per line of the footprint's chunks, no
**    key to compare, and lines referenced close in time are mostly close
**    in number, so their stamps share the host's cache lines.
**
** Pure C like cachesim.c: memory comes from cs_alloc/cs_free (cachesim.h).
*/
#ifndef LRUSTACK_H
#define LRUSTACK_H

#include <stdint.h>

#define LS_MAX_BUCKETS 40
#define LS_ABSENT (-1)

typedef struct {
  uint64_t  key;            /* chunk number + 1; 0 = empty */
  uint32_t *stamp;          /* per line of the chunk: last time + 1, or 0
                               if the line is not in the stack */
} ls_chunk;

typedef struct {
  uint64_t  key;            /* line + 1; 0 = empty */
  uint32_t  stamp;          /* last time + 1 */
} ls_hslot;

/* Stacks of at most this many lines use the hash table form. */
#define LS_SMALL 16384

typedef struct {
  int       small;          /* line table form: hslot (1) or chunks (0) */
  ls_hslot *hslot;          /* small: hash table of the lines in the stack */
  uint32_t  hslot_mask;     /* its slots - 1 */
  ls_chunk *chunk;          /* line table: hash table of chunks */
  uint32_t  chunk_mask;     /* chunk slots - 1 */
  uint32_t  n_chunks;
  uint64_t  last_key;       /* the chunk of the previous lookup */
  uint32_t *last_stamp;
  uint64_t *ring;           /* ring[t & ring_mask]: line referenced at t */
  uint64_t *valid;          /* bit t & ring_mask: t is its line's last time */
  uint64_t  ring_mask;      /* ring size - 1 (a power of two >= 64) */
  uint64_t  now;            /* time of the next reference */
  uint64_t  oldest;         /* time of the deepest line, when count > 0 */
  uint32_t  capacity;       /* most lines kept */
  uint32_t  count;          /* lines in the stack */
  int       n_buckets;      /* K */
  uint32_t  edge[LS_MAX_BUCKETS + 1];
  uint64_t  tail[LS_MAX_BUCKETS]; /* time of bucket j's deepest line, while
                                     the bucket is full */
  uint64_t  mru_line;       /* valid when count > 0 */
} ls_stack;

/* Most lines a stack can keep: its times must fit the 32-bit stamps. */
#define LS_MAX_CAPACITY (1u << 27)

/* 1 <= capacity <= LS_MAX_CAPACITY.  pow2_buckets = 0: one bucket; 1: edges 0, 1, 2, 4, ...
   (every power of two below capacity), capacity. */
ls_stack *ls_new(uint32_t capacity, int pow2_buckets);
/* The same with the line table's form chosen (the unit tests try both). */
enum { LS_FORM_AUTO, LS_FORM_HASH, LS_FORM_CHUNKS };
ls_stack *ls_new_form(uint32_t capacity, int pow2_buckets, int form);
void      ls_delete(ls_stack *);
void      ls_clear(ls_stack *);              /* empty, as new */

/* Reference one line: its bucket before the reference, or LS_ABSENT. */
int       ls_ref(ls_stack *, uint64_t line);

/* Starts loading what a reference of the line will read first (its
   stamp), so that the host's cache miss overlaps other work. */
void      ls_prefetch(ls_stack *, uint64_t line);

/* The line is the most recent one (a reference would change nothing and
   report bucket 0). */
static inline int ls_is_mru(const ls_stack *s, uint64_t line)
{
  return s->count > 0 && s->mru_line == line;
}

static inline int ls_buckets(const ls_stack *s) { return s->n_buckets; }
/* Lower edge of bucket j (0 <= j <= K; edge K is the capacity). */
static inline uint32_t ls_edge(const ls_stack *s, int j) { return s->edge[j]; }

#endif /* LRUSTACK_H */
