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

/* Whether a store that hit D1 needs no coherence work (a line the
 * running core owns): the replay's inline test before it calls the hook
 * below, with the system's cc_hot (cc__hot(cb_cc)) and the running
 * core's code (cb_cc_core->code) read once per block. */
static inline Bool cb_cores_store_hit_quiet(const cc_hot *hot, cc_state code, Addr a,
                                            UWord size)
{
   return cc__quiet(hot, code, a, (unsigned)size, 0, 1);
}

/* The hook of the data access (sim_int.h), after the access of the
 * running core with result r (cachesim bits): coherence, and its events
 * while collecting. Returns the outcome (coherence.h: class and
 * invalidations), 0 when nothing happened. The common case (the line's
 * state asks for nothing: coherence.h's cc_nothing_to_do) makes no call;
 * the rest is cb_cores_coherence's (cores.c). */
static inline __attribute__((always_inline))
unsigned cb_cores_data_access(ULong *slot, cb_obj_ref ref, Addr a, UWord size, unsigned r,
                              Bool is_write)
{
   unsigned res;
   if (cc_nothing_to_do(cb_cc, cb_cc_core, a, (unsigned)size, r, is_write)) return 0;
   res = cb_cores_coherence(a, size, r, is_write);
   if (res && cb_cur.collect) cb_cores_count(slot, res, ref);
   return res;
}

#endif
