/*
** branchsim.c -- allocation of the branch predictor; the predictor
** itself is inline in branchsim.h (it runs once per branch).
**
** Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
*/
#include "branchsim.h"
#include "cachesim.h"   /* cs_alloc, cs_free */

bs_sim *bs_new(void)
{
   return cs_alloc(sizeof(bs_sim));
}

void bs_delete(bs_sim *b)
{
   if (b)
      cs_free(b);
}

void bs_clear(bs_sim *b)
{
   unsigned i;

   b->history = 0;
   for (i = 0; i < BS_COUNTERS; i++)
      b->counters[i] = 0;
   for (i = 0; i < BS_BTAC; i++)
      b->targets[i] = 0;
}
