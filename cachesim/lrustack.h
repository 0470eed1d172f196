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
** Cost: a hash lookup, an unlink and a push, plus one pointer move per
** bucket *below* the line's bucket (the tail of each full bucket above the
** line slides into the next bucket: "markers" at the bucket edges).  So a
** reference at distance d costs O(1 + log2 d); the most recent line costs
** one comparison, and the next few are found by walking the list's head
** instead of hashing.  Exact, no approximation.
**
** Pure C like cachesim.c: memory comes from cs_alloc/cs_free (cachesim.h).
**
** Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
*/
#ifndef LRUSTACK_H
#define LRUSTACK_H

#include <stdint.h>

#define LS_MAX_BUCKETS 40
#define LS_ABSENT (-1)

typedef struct {
   uint64_t line;
   uint32_t prev, next;      /* towards the MRU / the LRU end; 0 = sentinel */
   uint32_t hnext;           /* hash chain, 0 = end */
   uint32_t bucket;          /* bucket of the line's current position */
} ls_node;

typedef struct {
   ls_node  *node;           /* node[0]: sentinel, next = MRU, prev = LRU */
   uint32_t  n_alloc;        /* nodes allocated (node[0] included) */
   uint32_t  n_used;         /* nodes handed out (node[0] included) */
   uint32_t *table;          /* hash heads (node indices) */
   uint32_t  table_bits;
   uint32_t  capacity;       /* most lines kept */
   uint32_t  count;          /* lines in the stack */
   int       n_buckets;      /* K */
   uint32_t  edge[LS_MAX_BUCKETS + 1];
   uint32_t  tail[LS_MAX_BUCKETS]; /* last node of bucket j, while full */
   uint64_t  mru_line;       /* valid when count > 0 */
} ls_stack;

/* capacity >= 1.  pow2_buckets = 0: one bucket; 1: edges 0, 1, 2, 4, ...
   (every power of two below capacity), capacity. */
ls_stack *ls_new(uint32_t capacity, int pow2_buckets);
void      ls_delete(ls_stack *);
void      ls_clear(ls_stack *);              /* empty, as new */

/* Reference one line: its bucket before the reference, or LS_ABSENT. */
int       ls_ref(ls_stack *, uint64_t line);
/* The same for a line the caller expects not to be among the few most
   recent ones (an L1 miss: a set associative LRU cache of associativity A
   holds the A most recent lines): skips looking at them before hashing.
   Only the cost differs. */
int       ls_ref_far(ls_stack *, uint64_t line);

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
