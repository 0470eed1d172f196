/* callgrind-bd: the event registry, and cost arrays.
 *
 * Owns which events are counted and where each sits in a cost array.
 * Every event the tool can count has an event_id (global.h, in the
 * reference's output order); an event is counted when it was declared,
 * once, after option parsing, through cb_event_declare: that gives it the
 * next position in every cost array (cb_ev_pos) and, if wanted, a name
 * made at run time. The reference events are declared here
 * (cb_events_setup); the glue of later features (missclass_events.c,
 * reusedist_events.c) declares its own events after them, so that the
 * reference's events keep their positions.
 *
 * The output order is the declaration order (cb_ev_at): the --L2
 * events are declared between the L1 and the LL misses.
 *
 * A cost array is cb_n_events counters, in declaration order: cost
 * centres, call arcs, running counters and totals all use this layout.
 *
 * Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
 */
#include "global.h"

Int cb_ev_pos[EV_COUNT];
event_id cb_ev_at[EV_COUNT];
Int cb_n_events;
const HChar *cb_ev_name[EV_COUNT] = {
   "Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw",
   "ILdmr", "DLdmr", "DLdmw", "Bc", "Bcm", "Bi", "Bim",
   "AcCost1", "SpLoss1", "AcCost2", "SpLoss2",
   "L1ld", "LLld", "L1ldB", "LLldB", "Ge", "sysCount", "sysTime", "sysCpuTime",
   /* --miss-class (missclass_events.c); the --reuse-dist names are made
    * from the LL size at start (reusedist_events.c) */
   "I1Co", "I1Ca", "I1Cf", "D1Co", "D1Ca", "D1Cf", "LLCo", "LLCa", "LLCf",
   /* --L2 (written between the L1 and the LL misses), --prefetch=stream */
   [EV_I2mr] = "I2mr", "D2mr", "D2mw",
   "AcCostL2", "SpLossL2", "L2ld", "L2ldB",
   "Pfi", "Pfu", "Pfx", "L2Co", "L2Ca", "L2Cf",
   /* --latency (latency.c) */
   [EV_D1dep] = "D1dep", "DLdep",
};

/* Count event e from now on: it takes the next position in cost arrays.
 * name: its name in the profile, or NULL for the registry's own. */
void cb_event_declare(event_id e, const HChar *name)
{
   CB_ASSERT(cb_ev_pos[e] < 0);
   if (name) cb_ev_name[e] = name;
   cb_ev_at[cb_n_events] = e;
   cb_ev_pos[e] = cb_n_events++;
}

static void declare_range(event_id first, event_id last)
{
   Int e;
   for (e = first; e <= last; e++) cb_event_declare(e, NULL);
}

/* The reference's events chosen by the options, in its order. */
void cb_events_setup(void)
{
   Int e;
   for (e = 0; e < EV_COUNT; e++) cb_ev_pos[e] = -1;
   cb_n_events = 0;
   cb_event_declare(EV_Ir, NULL);
   if (cb_clo.simulate_cache) {
      declare_range(EV_Dr, EV_D1mw);
      if (cb_clo.l2_set) declare_range(EV_I2mr, EV_D2mw);
      declare_range(EV_ILmr, EV_DLmw);
      if (cb_clo.simulate_wb) declare_range(EV_ILdmr, EV_DLdmw);
   }
   if (cb_clo.branch_sim) declare_range(EV_Bc, EV_Bim);
   if (cb_clo.cacheuse) {
      declare_range(EV_AcCost1, EV_SpLoss1);
      if (cb_clo.l2_set) declare_range(EV_AcCostL2, EV_SpLossL2);
      declare_range(EV_AcCost2, EV_SpLoss2);
   }
   if (cb_clo.backdate_check) {       /* each level's pair, L1 L2 LL */
      cb_event_declare(EV_L1ld, NULL);
      if (cb_clo.l2_set) cb_event_declare(EV_L2ld, NULL);
      cb_event_declare(EV_LLld, NULL);
      cb_event_declare(EV_L1ldB, NULL);
      if (cb_clo.l2_set) cb_event_declare(EV_L2ldB, NULL);
      cb_event_declare(EV_LLldB, NULL);
   }
   if (cb_clo.collect_bus) cb_event_declare(EV_Ge, NULL);
   if (cb_clo.collect_systime != SYSTIME_NO) {
      cb_event_declare(EV_sysCount, NULL);
      cb_event_declare(EV_sysTime, NULL);
      cb_ev_long[EV_sysTime] = cb_clo.collect_systime == SYSTIME_MSEC
                                  ? "sysTime (elapsed ms)"
                               : cb_clo.collect_systime == SYSTIME_USEC
                                  ? "sysTime (elapsed us)" : "sysTime (elapsed ns)";
      if (cb_clo.collect_systime == SYSTIME_NSEC) {
         cb_event_declare(EV_sysCpuTime, NULL);
         cb_ev_long[EV_sysCpuTime] = "sysCpuTime (system cpu ns)";
      }
   }
   if (cb_clo.prefetch_distance > 0) {
      cb_event_declare(EV_Pfi, NULL);
      if (cb_clo.cacheuse) declare_range(EV_Pfu, EV_Pfx);
   }
   /* the simulation helpers rely on it (HOT_POS in sim_int.h); with an L2 the
    * LL's misses come 3 later and are counted through cb_ev_pos */
   if (cb_clo.simulate_cache)
      for (e = EV_Ir; e <= (cb_clo.l2_set ? EV_D1mw : EV_DLmw); e++)
         tl_assert(cb_ev_pos[e] == (Int)e);
}

/* Whether cost centres keep a cost per instruction (else only Ir is
 * counted, per block, by the call tracker). */
/* Known at eviction, charged to the cost centre that loaded the line
 * (and through the back-dating trees to arcs and paths), never to the
 * running counters. */
Bool cb_event_backdated(event_id e)
{
   return e == EV_AcCost1 || e == EV_SpLoss1 || e == EV_AcCost2 || e == EV_SpLoss2
       || e == EV_L1ldB || e == EV_LLldB || e == EV_AcCostL2 || e == EV_SpLossL2
       || e == EV_L2ldB || e == EV_Pfu || e == EV_Pfx;
}

Bool cb_events_per_instr(void)
{
   return cb_clo.simulate_cache || cb_clo.branch_sim || cb_clo.collect_bus;
}

ULong *cb_new_cost(cb_mem_kind k)
{
   ULong *c = cb_mem_alloc(k, "cb.cost", cb_n_events * sizeof(ULong));
   cb_zero_cost(c);
   return c;
}
