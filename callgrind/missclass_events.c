/* callgrind-bd: --miss-class=yes, the glue between the cache model and
 * the miss classifier (cachesim/missclass.h, where the model is stated).
 *
 * Every I1, D1 and LL miss of an access is classified compulsory,
 * capacity or conflict and counted as an immediate event of the missing
 * instruction, next to I1mr/D1mr/.../DLmw:
 *    I1Co I1Ca I1Cf   I1 misses        (sum = I1mr)
 *    D1Co D1Ca D1Cf   D1 misses        (sum = D1mr + D1mw)
 *    LLCo LLCa LLCf   LL misses        (sum = ILmr + DLmr + DLmw)
 * Being immediate events, they reach the running counter, so their
 * inclusive costs on call arcs are exact like those of D1mr.
 *
 * The shadows follow the model's state whether or not collection is on
 * (as the real caches do); only the counting depends on collection.
 *
 * Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
 */
#include "global.h"
#include "cachesim.h"
#include "missclass.h"

static mc_sim *mc;
ULong cb_mc_i1_last_line = ~0ULL;
Int   cb_mc_i1_line_bits;

/* The 9 events (named in events.c), declared after the reference's: the
 * enum puts them after every reference event. */
static void declare_events(void)
{
   Int e;
   for (e = EV_I1Co; e <= EV_LLCf; e++) cb_event_declare(e, NULL);
}

void cb_mc_setup(struct cs_sim *sim, const cs_geometry *i1,
                 const cs_geometry *d1, const cs_geometry *ll)
{
   declare_events();
   mc = mc_new(i1, d1, ll, cb_clo.cacheuse);
   cb_mc_i1_line_bits = mc->i1.line_bits;
   cs_set_ll_observer(sim, mc_observe_ll, mc);
}

/* The caches were emptied (instrumentation switched): the next reference
 * of every line is a first touch again, as it misses for that reason. */
void cb_mc_clear(void)
{
   if (mc) mc_clear(mc);
   cb_mc_i1_last_line = ~0ULL;
}

/* cls: bits 0-1 the L1 class, bits 2-3 the LL class (MC_*). */
static inline void count_classes(ULong *slot, event_id l1_first, unsigned cls)
{
   ULong *run = cb_cur.cost;
   Int p;
   if (cls & 3) {
      p = cb_event_pos(l1_first + (cls & 3) - 1);
      slot[p]++; run[p]++;
   }
   if (cls >> 2) {
      p = cb_event_pos(EV_LLCo + (cls >> 2) - 1);
      slot[p]++; run[p]++;
   }
}

/* Called for every fetch that missed I1 or left the last fetch's line
 * (the helpers in sim.c skip the others, see cb_mc_same_i1_line). */
void cb_mc_instr(ULong *slot, Addr a, UInt size, UInt result)
{
   unsigned cls = mc_access(mc, &mc->i1, a, size, result);
   cb_mc_i1_last_line = mc->i1.fa->mru_line;
   if (cls && cb_cur.collect) count_classes(slot, EV_I1Co, cls);
}

void cb_mc_data(ULong *slot, Addr a, UWord size, UInt result)
{
   unsigned cls = mc_access(mc, &mc->d1, a, (unsigned)size, result);
   if (cls && cb_cur.collect) count_classes(slot, EV_D1Co, cls);
}
