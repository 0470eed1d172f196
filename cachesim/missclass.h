/*
** missclass.h -- classifies every miss of I1, D1 and LL as compulsory,
** capacity or conflict (the "3C" model), exactly, per access.
**
** The model.  Each level (I1, D1, LL) gets a shadow: a fully associative
** LRU cache with the same number of lines (size / line size) and the same
** line size, and the set of lines that level has ever referenced.  The
** shadow sees exactly the line references the real level sees:
**  - I1, D1: every access of that cache (both lines of an access that
**    crosses a line boundary, under the same rule as the real lookup);
**  - LL: every LL lookup the cache model makes, reported by cachesim's LL
**    observer (cs_set_ll_observer): demand references after an L1 miss,
**    write-through references of write-back simulation, and prefetches.
** A miss of an access at a level (the reference's per-access miss: one
** miss even if both of its lines missed) is then
**  - compulsory: one of the access's lines had never been referenced at
**    that level before (first touch since the start or the last clear);
**  - capacity:   otherwise, if the access would also miss in the shadow
**    (one of its lines is not among the level's `lines` most recently
**    referenced distinct lines);
**  - conflict:   otherwise (the fully associative cache would have hit:
**    the miss comes from the set mapping).
** Every miss gets exactly one class, so per level
** compulsory + capacity + conflict = misses, exactly.  Accesses that hit
** are not classified (they still update the shadows).
**
** With an L2 (cs_set_l2, mc_set_l2) the L2 gets a shadow too, fed by the
** observer's CS_L2_* reports (every L2 lookup, line by line), and an L2
** miss is classified the same way; a core (mc_new_core) gets an L2 shadow
** of its own, as it has an L2 of its own.
**
** Prefetches (hwpref) are LL references of the shadow too (they bring the
** line into LL, and a line first brought in by a prefetch is no longer a
** first touch), but never misses.  With write-back without cacheuse the
** reference's prefetch looks up a tag no demand access can match (see
** cachesim.c); the shadow mirrors it with a line number no demand access
** can have.
**
** Cost: O(1) per reference (lrustack.h with one bucket, lineset.h); an
** access whose line is the level's most recent line costs one compare.
**
** Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
*/
#ifndef MISSCLASS_H
#define MISSCLASS_H

#include <stdint.h>
#include "cachesim.h"
#include "lrustack.h"
#include "lineset.h"

/* Class of one miss; MC_NONE: no miss at that level. */
enum { MC_NONE = 0, MC_COMPULSORY = 1, MC_CAPACITY = 2, MC_CONFLICT = 3 };

/* What the references of one access found in a level's shadow. */
enum { MC_FIRST = 1, MC_FA_MISS = 2 };

typedef struct {
   ls_stack *fa;             /* fully associative LRU shadow */
   lineset  *seen;           /* lines ever referenced at this level */
   int       line_bits;
   int       straddle_by_sets; /* 2nd line looked up only in another set */
   uint32_t  sets_mask;
} mc_level;

typedef struct {
   mc_level i1, d1, ll;
   unsigned ll_flags;        /* MC_* of the running access's LL references */
   int      has_l2;          /* mc_set_l2 */
   mc_level l2;
   cs_geometry l2_geom;
   unsigned l2_flags;        /* the same for L2 */
} mc_sim;

/* Geometries must pass cs_geometry_check.  l1_straddle_by_sets: the cache
   model runs with cacheuse (its L1 lookups then detect a line crossing by
   sets, see cachesim.c). */
mc_sim *mc_new(const cs_geometry *i1, const cs_geometry *d1,
               const cs_geometry *ll, int l1_straddle_by_sets);
void    mc_delete(mc_sim *);
/* An L2 shadow (the cache model has cs_set_l2(sim, l2)); before the first
   access.  Cores made by mc_new_core afterwards get one of their own. */
void    mc_set_l2(mc_sim *, const cs_geometry *l2);
/* A core's classifier (--private-caches, see coherence.h): I1 and D1
   shadows of its own, first's LL shadow (the LL is shared).  Give it to
   that core's cs_sim with cs_set_ll_observer.  Delete every core made
   this way (mc_delete_core) before first (mc_delete).  mc_clear on any
   core clears the shared LL shadow too. */
mc_sim *mc_new_core(const mc_sim *first, const cs_geometry *i1,
                    const cs_geometry *d1, int l1_straddle_by_sets);
void    mc_delete_core(mc_sim *);
/* Forget everything: shadows empty, no line touched (the real caches were
   emptied). */
void    mc_clear(mc_sim *);

/* The LL observer to give to cs_set_ll_observer(sim, mc_observe_ll, mc). */
void    mc_observe_ll(void *mc, uint64_t line, int kind);

/* The references of an access to one level: MC_FIRST / MC_FA_MISS bits. */
unsigned mc_level_ref(mc_level *, uint64_t addr, unsigned size);

static inline unsigned mc_class_of(unsigned flags)
{
   if (flags & MC_FIRST)
      return MC_COMPULSORY;
   return (flags & MC_FA_MISS) ? MC_CAPACITY : MC_CONFLICT;
}

unsigned mc__access(mc_sim *, mc_level *l1, uint64_t a, unsigned size,
                    unsigned r);

/* Call after the cache model simulated an access to l1 (&m->i1 or &m->d1)
   with result r (CS_* bits).  Returns the L1 miss class in bits 0-1, the
   LL miss class in bits 2-3 and the L2's in bits 4-5 (MC_NONE where the
   access did not miss). */
static inline unsigned mc_access(mc_sim *m, mc_level *l1, uint64_t a,
                                 unsigned size, unsigned r)
{
   uint64_t line = a >> l1->line_bits;

   if (!(r & CS_L1_MISS) && line == ((a + size - 1) >> l1->line_bits)
       && ls_is_mru(l1->fa, line)) {
      m->ll_flags = 0;        /* write-through references of a hit */
      m->l2_flags = 0;
      return 0;
   }
   return mc__access(m, l1, a, size, r);
}

#endif /* MISSCLASS_H */
