/*
** missclass.c -- compulsory / capacity / conflict classification of
** misses (the model is described in missclass.h).
**
** Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
*/
#include "missclass.h"

static int log2_of(uint32_t x)
{
   int i = 0;
   while ((1u << i) < x)
      i++;
   return i;
}

static void level_init(mc_level *l, const cs_geometry *g, int by_sets)
{
   const char *err = cs_geometry_check(g);

   if (err)
      cs_fail(err);
   l->fa = ls_new((uint32_t)(g->size / g->line_size), 0);
   l->seen = lset_new();
   l->line_bits = log2_of((uint32_t)g->line_size);
   l->sets_mask = (uint32_t)(g->size / g->line_size / g->assoc) - 1;
   l->straddle_by_sets = by_sets;
}

static void level_free(mc_level *l)
{
   ls_delete(l->fa);
   lset_delete(l->seen);
}

static void level_clear(mc_level *l)
{
   ls_clear(l->fa);
   lset_clear(l->seen);
}

mc_sim *mc_new(const cs_geometry *i1, const cs_geometry *d1,
               const cs_geometry *ll, int l1_straddle_by_sets)
{
   mc_sim *m = cs_alloc(sizeof(mc_sim));

   level_init(&m->i1, i1, l1_straddle_by_sets);
   level_init(&m->d1, d1, l1_straddle_by_sets);
   /* LL references come line by line from the observer. */
   level_init(&m->ll, ll, 0);
   return m;
}

void mc_set_l2(mc_sim *m, const cs_geometry *l2)
{
   level_init(&m->l2, l2, 0);    /* references come line by line */
   m->l2_geom = *l2;
   m->has_l2 = 1;
}

void mc_delete(mc_sim *m)
{
   if (!m)
      return;
   level_free(&m->i1);
   level_free(&m->d1);
   level_free(&m->ll);
   if (m->has_l2)
      level_free(&m->l2);
   cs_free(m);
}

mc_sim *mc_new_core(const mc_sim *first, const cs_geometry *i1,
                    const cs_geometry *d1, int l1_straddle_by_sets)
{
   mc_sim *m = cs_alloc(sizeof(mc_sim));

   level_init(&m->i1, i1, l1_straddle_by_sets);
   level_init(&m->d1, d1, l1_straddle_by_sets);
   m->ll = first->ll;         /* the same shadow: its state is pointed to */
   if (first->has_l2) {       /* a private L2: a shadow of its own */
      mc_set_l2(m, &first->l2_geom);
   }
   return m;
}

void mc_delete_core(mc_sim *m)
{
   if (!m)
      return;
   level_free(&m->i1);
   level_free(&m->d1);
   if (m->has_l2)
      level_free(&m->l2);
   cs_free(m);
}

void mc_clear(mc_sim *m)
{
   level_clear(&m->i1);
   level_clear(&m->d1);
   level_clear(&m->ll);
   if (m->has_l2)
      level_clear(&m->l2);
   m->ll_flags = 0;
   m->l2_flags = 0;
}

/* One line referenced at a level; far: see ls_ref_far. */
static inline unsigned ref_line(mc_level *l, uint64_t line, int far)
{
   if ((far ? ls_ref_far(l->fa, line) : ls_ref(l->fa, line)) != LS_ABSENT)
      return 0;
   /* lines in the shadow are always in `seen`: only test on a shadow miss */
   return MC_FA_MISS | (lset_test_and_add(l->seen, line) ? 0 : MC_FIRST);
}

static inline unsigned level_ref(mc_level *l, uint64_t a, unsigned size,
                                 int far)
{
   uint64_t line1 = a >> l->line_bits;
   uint64_t line2 = (a + size - 1) >> l->line_bits;
   unsigned f = ref_line(l, line1, far);

   if (line2 != line1 && (!l->straddle_by_sets || l->sets_mask != 0))
      f |= ref_line(l, line2, far);
   return f;
}

unsigned mc_level_ref(mc_level *l, uint64_t a, unsigned size)
{
   return level_ref(l, a, size, 0);
}

/* A prefetch that can never be hit by a demand access (see missclass.h):
   real line numbers stay below 2^58, so this one is out of their range. */
#define UNMATCHABLE (1ull << 63)

void mc_observe_ll(void *mc, uint64_t line, int kind)
{
   mc_sim *m = mc;

   switch (kind) {
   case CS_LL_DEMAND:
      m->ll_flags |= ref_line(&m->ll, line, 0);
      break;
   case CS_LL_PREFETCH:
      ref_line(&m->ll, line, 0);
      break;
   case CS_L2_DEMAND:
      m->l2_flags |= ref_line(&m->l2, line, 0);
      break;
   case CS_L2_PREFETCH:
      ref_line(&m->l2, line, 0);
      break;
   default:                  /* CS_LL_PREFETCH_BLIND */
      ls_ref(m->ll.fa, line | UNMATCHABLE);
      break;
   }
}

unsigned mc__access(mc_sim *m, mc_level *l1, uint64_t a, unsigned size,
                    unsigned r)
{
   /* an L1 miss: the lines are not among the L1's few most recent ones */
   unsigned f = level_ref(l1, a, size, (r & CS_L1_MISS) != 0), res = MC_NONE;

   if (r & CS_L1_MISS)
      res = mc_class_of(f);
   if (r & CS_LL_MISS)
      res |= mc_class_of(m->ll_flags) << 2;
   if (r & CS_L2_MISS)
      res |= mc_class_of(m->l2_flags) << 4;
   m->ll_flags = 0;
   m->l2_flags = 0;
   return res;
}
