/*
** l2.c -- the optional third level: a private unified L2 between I1/D1
** and the LL (--L2), and the access path taken whenever the L2 or the
** stream prefetcher (streampf.c) is on.
**
** The model's rules:
**  - L2 is unified, exact LRU like every cache here, write-allocate, and
**    looked up only after an L1 miss (I1 or D1); only an L2 miss goes on
**    to LL.  Inclusion is not enforced between any two levels.
**  - L2 gets exactly the references the LL gets in the two-level model:
**    a straddling access that misses L1 sends both of its lines to L2
**    (as the two-level model sends both to LL), and with write-back a D1
**    write hit writes through to L2.  So with an L2 of the LL's geometry
**    the L2 misses are the two-level run's LL misses, and I1/D1 never
**    change with an L2 (it sits below them).
**  - Write-back (--simulate-wb): L1 and L2 are write-through, the LL is
**    write-back.  Every write reaches LL, which keeps the dirty bits: a
**    write that hits L1 or L2 still references LL (making its line
**    dirty), and such a reference never counts as a miss of the access.
**  - The reference's hardware prefetcher (--simulate-hwpref) keeps
**    prefetching into LL only.
**  - Result bits: CS_L2_MISS when L2 missed (with CS_L1_MISS), then
**    CS_LL_MISS / CS_LL_DIRTY_MISS as in the two-level model.
**  - A core (cs_new_core) gets an L2 of its own: L2 is private, LL shared.
**  - Cache use: an L2 line is like an LL line of the two-level model: it
**    is loaded with count 0 and no bits, owned by the access that missed
**    it, and gathers use only from the L1 lines merged into it; an L1
**    line merges into the L2 slot it was linked to at load, an L2 line
**    into the LL slot it was linked to (both while collecting, even if the
**    slot was refilled since: the reference's rule, one level further).
**    An L2 line that leaves reports 1000/count and its unused bytes at
**    level CS_LEVEL_L2 (0, 0 if never used or not collecting).  Flushing
**    goes I1, D1, L2, LL, so every line merges into a line still there.
**
** Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
*/
#include "cachesim_int.h"

void cs_set_l2(cs_sim *s, const cs_geometry *g)
{
   if (s->has_l2)
      cs_fail("cachesim: the L2 is set once");
   if (s->use)
      cs__init_cache(&s->l2, g, 1, 1, 0, s->i1.ext != 0);
   else
      cs__init_plain_cache(&s->l2, g);
   s->has_l2 = 1;
   s->ext = 1;
   cs__probe_update(s);
}

/* The LL reference of a write that went no further than L1 or L2: only
   the write-back LL needs it (for its dirty bit). */
static void write_through_ll(cs_sim *s, uint64_t a, unsigned size)
{
   if (s->wb) {
      cs__observe(s, a, size, CS_LL_DEMAND);
      cs__wb_ref(&s->ll, a, size, 1);
   }
}

unsigned cs__below_l1(cs_sim *s, uint64_t a, unsigned size, int is_write)
{
   unsigned r = 0;

   if (s->has_l2) {
      cs__observe(s, a, size, CS_L2_DEMAND);
      if (cs__plain_ref(&s->l2, a, size) == HIT) {
         if (is_write)
            write_through_ll(s, a, size);
         return 0;
      }
      r = CS_L2_MISS;
   }
   cs__observe(s, a, size, CS_LL_DEMAND);
   if (!s->wb)
      return cs__plain_ref(&s->ll, a, size) == HIT ? r : r | CS_LL_MISS;
   switch (cs__wb_ref(&s->ll, a, size, is_write)) {
   case HIT:  return r;
   case MISS: return r | CS_LL_MISS;
   default:   return r | CS_LL_MISS | CS_LL_DIRTY_MISS;
   }
}

/* A D1 write hit with write-back: through L2 (if any) to LL. */
static void write_through(cs_sim *s, uint64_t a, unsigned size)
{
   if (s->has_l2) {
      cs__observe(s, a, size, CS_L2_DEMAND);
      cs__plain_ref(&s->l2, a, size);
   }
   write_through_ll(s, a, size);
}

/* The order of the two-level model (plain_access in cachesim.c): the
   reference's prefetcher runs before the L1 lookup for a write-back
   write, else after an L1 miss; the stream prefetcher sees the access's
   lines after the demand reference has filled them. */
unsigned cs__access_ext(cs_sim *s, cs_cache *l1, uint64_t a, unsigned size,
                        int is_write)
{
   int wb_write = s->wb && is_write;
   uint64_t seen[2];
   int n_seen = 0, i, l1_res;
   unsigned r = 0;

   if (s->hwpref && wb_write)
      cs__hw_prefetch(s, a, 0);
   if (s->spf && l1 == &s->d1)
      l1_res = cs__spf_d1_ref(s, a, size, seen, &n_seen);
   else
      l1_res = cs__plain_ref(l1, a, size);
   if (l1_res == HIT) {
      if (wb_write)
         write_through(s, a, size);
   } else {
      if (s->hwpref && !wb_write)
         cs__hw_prefetch(s, a, 0);
      r = CS_L1_MISS | cs__below_l1(s, a, size, is_write);
   }
   for (i = 0; i < n_seen; i++)
      r |= cs__spf_observe(s, seen[i], 0);
   return r;
}

/* ------------------------------------------------------------------------
** Cache use
*/

/* An owned L2 line leaves into the LL slot it was linked to. */
static void evict_l2(cs_sim *s, uint32_t slot)
{
   cs__evict_line(s, CS_LEVEL_L2, &s->l2, slot, &s->ll);
}

unsigned cs__use_l2_ref(cs_sim *s, uint64_t memline, uint32_t *link,
                        const cs_owner *owner, int is_write)
{
   cs_cache *c = &s->l2;
   uint32_t set_no = (uint32_t)(memline >> c->line_bits) & c->sets_mask;
   int hit;
   uint32_t slot;

   cs__observe(s, memline, 1, CS_L2_DEMAND);
   slot = cs__set_search(c, set_no, memline & c->tag_mask, &hit);
   if (link)
      *link = slot;
   if (hit) {
      if (s->wb && is_write) {    /* LL keeps the dirty bits */
         cs__observe(s, memline, 1, CS_LL_DEMAND);
         cs__use_ll_ref(s, memline, 0, owner, 1);
      }
      return 0;
   }
   evict_l2(s, slot);
   cs__load_line(s, c, CS_LEVEL_L2, slot, 0, 0, owner);
   cs__observe(s, memline, 1, CS_LL_DEMAND);
   return CS_L2_MISS | cs__use_ll_ref(s, memline, &c->line[slot].ll_slot,
                                      owner, is_write);
}

void cs__flush_l2(cs_sim *s)
{
   unsigned i, n = s->l2.slots;

   if (s->use)
      for (i = 0; i < n; i++)
         evict_l2(s, i);
   cs__empty_cache(&s->l2, s->use);
}
