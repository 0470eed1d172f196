/* callgrind-bd: --miss-class=yes, the glue between the cache model and
 * the miss classifier (cachesim/missclass.h, where the model is stated).
 *
 * Every I1, D1 and LL miss of an access is classified compulsory,
 * capacity or conflict and counted as an immediate event of the missing
 * instruction, next to I1mr/D1mr/.../DLmw:
 *    I1Co I1Ca I1Cf   I1 misses        (sum = I1mr)
 *    D1Co D1Ca D1Cf   D1 misses        (sum = D1mr + D1mw)
 *    L2Co L2Ca L2Cf   L2 misses (--L2) (sum = I2mr + D2mr + D2mw)
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

static mc_sim *mc;                 /* the running core's */
static mc_sim **core_mc;           /* --private-caches: by core, [0] = first */
static UInt n_core_mc;
static cs_geometry geo_i1, geo_d1;
ULong cb_mc_i1_last_line = ~0ULL;
Int   cb_mc_i1_line_bits;

/* The 9 events (12 with --L2: the L2's between D1's and LL's), named in
 * events.c, declared after the reference's. */
static void declare_events(void)
{
   Int e;
   for (e = EV_I1Co; e <= EV_D1Cf; e++) cb_event_declare(e, NULL);
   if (cb_geom.has_l2)
      for (e = EV_L2Co; e <= EV_L2Cf; e++) cb_event_declare(e, NULL);
   for (e = EV_LLCo; e <= EV_LLCf; e++) cb_event_declare(e, NULL);
}

void cb_mc_setup(struct cs_sim *sim, const cs_geometry *i1,
                 const cs_geometry *d1, const cs_geometry *ll)
{
   declare_events();
   mc = mc_new(i1, d1, ll, cb_clo.cacheuse);
   if (cb_geom.has_l2) mc_set_l2(mc, &cb_geom.l2);
   geo_i1 = *i1;
   geo_d1 = *d1;
   cb_mc_i1_line_bits = mc->i1.line_bits;
   cs_set_ll_observer(sim, mc_observe_ll, mc);
}

/* The caches were emptied (instrumentation switched): the next reference
 * of every line is a first touch again, as it misses for that reason. */
void cb_mc_clear(void)
{
   UInt k;
   if (mc) mc_clear(mc);
   for (k = 0; k < n_core_mc; k++)
      if (core_mc[k]) mc_clear(core_mc[k]);
   cb_mc_i1_last_line = ~0ULL;
}

/* --private-caches: core k (a cs_sim of its own over the shared LL) gets
 * I1/D1 shadows of its own over the shared LL shadow. */
void cb_mc_new_core(UInt k, cs_sim *core)
{
   if (!core_mc) {
      n_core_mc = 1;
      core_mc = CB_MALLOC("cb.mc.cores", sizeof(mc_sim *));
      core_mc[0] = mc;
   }
   if (k >= n_core_mc) {
      UInt n = n_core_mc;
      while (n <= k) n *= 2;
      core_mc = VG_(realloc)("cb.mc.cores", core_mc, n * sizeof(mc_sim *));
      VG_(memset)(core_mc + n_core_mc, 0, (n - n_core_mc) * sizeof(mc_sim *));
      n_core_mc = n;
   }
   core_mc[k] = mc_new_core(core_mc[0], &geo_i1, &geo_d1, cb_clo.cacheuse);
   cs_set_ll_observer(core, mc_observe_ll, core_mc[k]);
}

/* The running core changed: its classifier, and its last fetched line. */
void cb_mc_switch_core(UInt k)
{
   if (core_mc) mc = core_mc[k];
   cb_mc_i1_last_line = mc->i1.fa->count > 0 ? mc->i1.fa->mru_line : ~0ULL;
}

/* cls: bits 0-1 the L1 class, bits 2-3 the LL class, bits 4-5 the L2
 * class (MC_*). */
static inline void count_classes(ULong *slot, event_id l1_first, unsigned cls)
{
   ULong *run = cb_cur.cost;
   Int p;
   if (cls & 3) {
      p = cb_event_pos(l1_first + (cls & 3) - 1);
      slot[p]++; run[p]++;
   }
   if ((cls >> 2) & 3) {
      p = cb_event_pos(EV_LLCo + ((cls >> 2) & 3) - 1);
      slot[p]++; run[p]++;
   }
   if (cls >> 4) {
      p = cb_event_pos(EV_L2Co + (cls >> 4) - 1);
      slot[p]++; run[p]++;
   }
}

/* Called for every fetch that missed I1 or left the last fetch's line
 * (the hot path, sim_int.h, skips the others, see cb_mc_same_i1_line). */
void cb_mc_instr(ULong *slot, Addr a, UInt size, UInt result)
{
   unsigned cls = mc_access(mc, &mc->i1, a, size, result);
   cb_mc_i1_last_line = mc->i1.fa->mru_line;
   if (cls && cb_cur.collect) count_classes(slot, EV_I1Co, cls);
}

/* coherence: the D1 miss is a sharing miss (D1Ts/D1Fs, cores.c), which
 * takes the place of its D1 class; its LL class stays. */
void cb_mc_data(ULong *slot, Addr a, UWord size, UInt result, Bool coherence)
{
   unsigned cls = mc_access(mc, &mc->d1, a, (unsigned)size, result);
   if (coherence) cls &= ~3u;
   if (cls && cb_cur.collect) count_classes(slot, EV_D1Co, cls);
}
