/* callgrind-bd: the data-access hook of --private-caches=yes, inline for
 * the simulation's hot path, sim_int.h (the rest of cores.c is declared in global.h's section
 * "cores.c"; the model is cachesim/coherence.h).
 *
 * The running thread's core is switched with the thread (cb_cores_switch
 * from threads.c through sim.c), so an access reads one pointer and never
 * looks a core up. A load hit returns at once; a store hit to a line the
 * core owns costs one compare.
 *
 * Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
 */
#ifndef CB_CORES_H
#define CB_CORES_H

#include "global.h"
#include "cachesim.h"
#include "coherence.h"
#include "objects.h"

/* Counts a nonzero coherence outcome (coherence.h) as D1Ts / D1Fs / Inv
 * of the instruction (slot), the running counter and (--objects) the
 * object of the access. */
static inline void cb_cores_count(ULong *slot, unsigned res, cb_obj_ref ref)
{
   ULong *run = cb_cur.cost;
   UInt inv = CC_INV(res);
   Int p;
   if (CC_CLASS(res)) {
      p = cb_event_pos(CC_CLASS(res) == CC_TRUE ? EV_D1Ts : EV_D1Fs);
      slot[p]++; run[p]++;
   }
   if (inv) {
      p = cb_event_pos(EV_Inv);
      slot[p] += inv; run[p] += inv;
   }
   if (cb_clo.objects) cb_obj_count_coherence(ref, res);
}

/* The hook of the data access (sim_int.h), after the access of the
 * running core with result r (cachesim bits): coherence, and its events
 * while collecting. Returns the outcome (coherence.h: class and
 * invalidations), 0 when nothing happened. */
static inline unsigned cb_cores_data_access(ULong *slot, cb_obj_ref ref, Addr a,
                                            UWord size, unsigned r, Bool is_write)
{
   cs_sim *sim = cb_cc_core->sim;
   unsigned res;
   if (cc_nothing_to_do(cb_cc_core, a, (unsigned)size, r, is_write)) return 0;
   /* invalidated lines leave other cores under the running context's flag */
   if (UNLIKELY(sim->collect != cb_cur.collect)) cs_set_collect(sim, cb_cur.collect);
   res = cc__data(cb_cc, cb_cc_core, a, (unsigned)size, r, is_write);
   if (res && cb_cur.collect) cb_cores_count(slot, res, ref);
   return res;
}

#endif
