/*
** reusedist.c -- bucketed reuse distances of data accesses (the model is
** described in reusedist.h).
**
** Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
*/
#include "reusedist.h"
#include "cachesim.h"          /* cs_alloc, cs_free, cs_fail */

rd_sim *rd_new(uint32_t lines, uint32_t line_size)
{
   rd_sim *r = cs_alloc(sizeof(rd_sim));

   if (line_size == 0 || (line_size & (line_size - 1)) != 0)
      cs_fail("reusedist: line size is not a power of two");
   while ((1u << r->line_bits) < line_size)
      r->line_bits++;
   r->stack = ls_new(lines, 1);
   r->seen = lset_new();
   r->n_finite = ls_buckets(r->stack);
   return r;
}

void rd_delete(rd_sim *r)
{
   if (!r)
      return;
   ls_delete(r->stack);
   lset_delete(r->seen);
   cs_free(r);
}

void rd_clear(rd_sim *r)
{
   ls_clear(r->stack);
   lset_clear(r->seen);
}

static int line_bucket(rd_sim *r, uint64_t line)
{
   int j = ls_ref(r->stack, line);

   if (j != LS_ABSENT)
      return j;
   /* lines in the stack are always in `seen`: test only beyond it */
   return lset_test_and_add(r->seen, line) ? rd_far(r) : rd_cold(r);
}

int rd__access(rd_sim *r, uint64_t a, unsigned size)
{
   uint64_t line1 = a >> r->line_bits;
   uint64_t line2 = (a + size - 1) >> r->line_bits;
   int j = line_bucket(r, line1);

   if (line2 != line1) {
      int j2 = line_bucket(r, line2);
      if (j2 > j)
         j = j2;
   }
   return j;
}
