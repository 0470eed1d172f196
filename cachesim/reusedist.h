/*
** reusedist.h -- LRU stack (reuse) distance of every data access, at line
** granularity, bucketed by powers of two.
**
** The model.  The data accesses of the program form one stream of line
** references (line = address / line size; an access crossing a line
** boundary references both of its lines, first then second).  The reuse
** distance d of a reference is the number of distinct other lines
** referenced since the previous reference of the same line.  A fully
** associative LRU cache of C lines hits exactly the references with
** d < C, for every C at once.
**
** Buckets, for a stack of L lines (L = the LL cache's lines):
**   bucket 0            d = 0
**   bucket j, 1 <= j    2^(j-1) <= d < 2^j, for every power of two < L
**                       (the last of these ends at L instead)
**   far  (rd_far)       d >= L (seen before, but L or more distinct lines
**                       since)
**   cold (rd_cold)      first reference of the line (since the start or
**                       the last rd_clear)
** The distance of an access is the larger of its lines' (cold > far >
** any finite d), so each access lands in exactly one bucket and the
** buckets sum to the number of accesses.  Misses of a fully associative
** LRU cache of C = 2^k lines (C <= L) = the accesses in the buckets whose
** lower edge is >= C, plus far and cold.
**
** The method: an exact LRU stack of the last L distinct lines with markers
** at the bucket edges (lrustack.h).  A reference at distance d costs a
** hash lookup and O(log2 d) marker moves; d = 0 (the previous line again)
** costs one compare.  Lines beyond the stack are told apart (far / cold)
** by the set of lines ever touched (lineset.h).  Chosen over a Fenwick
** tree of last-access times because we only need the bucket, short
** distances dominate real programs and cost O(1) here, and memory stays
** bounded by L nodes plus the footprint bitmap.
**
** Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
*/
#ifndef REUSEDIST_H
#define REUSEDIST_H

#include <stdint.h>
#include "lrustack.h"
#include "lineset.h"

typedef struct {
   ls_stack *stack;
   lineset  *seen;
   int       line_bits;
   int       n_finite;       /* buckets 0 .. n_finite-1 hold finite d < L */
} rd_sim;

/* lines >= 1 (the stack's size L), line_size a power of two. */
rd_sim  *rd_new(uint32_t lines, uint32_t line_size);
void     rd_delete(rd_sim *);
void     rd_clear(rd_sim *);       /* forget every line */

/* Buckets: 0 .. rd_far-1 finite, then far, then cold. */
static inline int rd_far(const rd_sim *r)     { return r->n_finite; }
static inline int rd_cold(const rd_sim *r)    { return r->n_finite + 1; }
static inline int rd_buckets(const rd_sim *r) { return r->n_finite + 2; }
/* Smallest distance of bucket j < rd_cold (rd_far's is L). */
static inline uint32_t rd_lower_edge(const rd_sim *r, int j)
{
   return ls_edge(r->stack, j);
}

int rd__access(rd_sim *, uint64_t a, unsigned size);

/* One data access of size bytes at a; returns its bucket. */
static inline int rd_access(rd_sim *r, uint64_t a, unsigned size)
{
   uint64_t line = a >> r->line_bits;

   if (line == ((a + size - 1) >> r->line_bits) && ls_is_mru(r->stack, line))
      return 0;
   return rd__access(r, a, size);
}

#endif /* REUSEDIST_H */
