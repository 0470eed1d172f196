/* callgrind-bd: the simulation's models and the helpers the generated
 * code calls.
 *
 * Owns the cache model and the branch predictor of the run (their start,
 * dumps and end), and the run-time helpers that feed them every fetch and
 * data access of the client. A helper counts the access's events (Ir, Dr,
 * misses...) in the cost slot of the accessing instruction and in the
 * running counter; lines it loads carry an owner (backdating.c) whose
 * cache-use metrics come back when they leave. The miss classes and reuse
 * distances are fed from here too (missclass_events.c,
 * reusedist_events.c). The hot path the helpers run is sim_int.h's, shared
 * with the deferred replay (sim_replay.c), which by default makes the
 * same calls from C instead of the generated code; the instrumentation
 * that emits them is sim_ir.c.
 *
 * Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
 */
#include "sim_int.h"

cs_sim *cb_sim_cache;
bs_sim *cb_sim_bpred;
cb_sim_hot_stats cb_sim_hot;

/*------------------------------------------------------------*/
/*--- Run-time helpers                                     ---*/
/*------------------------------------------------------------*/

/* Adds 1 to event e of slot and the running counter (e counted). */
static void count_event(ULong *slot, event_id e)
{
   Int p = cb_event_pos(e);
   slot[p]++;
   cb_cur.cost[p]++;
}

/* The outcome below L1 when it has a bit only --L2 or --prefetch set
 * (CS_L2_MISS, CS_PF_ISSUED): the L2 misses, the LL's (with an L2 their
 * positions are 3 later, so through cb_ev_pos) and the prefetches issued.
 * Only called on such outcomes: off the hit path. */
__attribute__((noinline))
void cb_sim_count_l2_prefetch(ULong *slot, unsigned r, event_id l1, event_id ll, event_id dirty)
{
   if (r & CS_L2_MISS)
      count_event(slot, l1 == EV_I1mr ? EV_I2mr : l1 == EV_D1mr ? EV_D2mr : EV_D2mw);
   if (r & CS_LL_MISS) {          /* with an L2, only after an L2 miss */
      count_event(slot, ll);
      if ((r & CS_LL_DIRTY_MISS) && cb_event_pos(dirty) >= 0) count_event(slot, dirty);
   }
   if (r & CS_PF_ISSUED) count_event(slot, EV_Pfi);
}

/* --sharing=yes: the access, with its instruction's address (while
 * collecting, as every event), when the helpers run in place. */
Bool cb_sim_share_each;
void cb_sim_share_acc(const sim_call *c, Int i, Addr a)
{
   const BB *bb = cb_cur.bbcc->bb;
   Addr instr = bb->addr + bb->instr[c->acc[i].cost / cb_n_events].offset;
   if (!cb_cur.collect) return;
   if (c->acc[i].modify) cb_fs_modify(instr, a, c->acc[i].size);
   else cb_fs_access(instr, a, c->acc[i].size, c->acc[i].write);
}

/* With --sharing=yes a BB's n calls are followed by where each call's
 * accesses begin among the block's (n + 1 numbers: the last is their
 * count) and the sites of the accesses (sharing.h: the position number,
 * size and kinds of each), found at the block's first replay: the
 * model gets them with the stored addresses, nothing copied. */
static SizeT calls_and_sites_bytes(const sim_call *calls, UInt n)
{
   UInt k, accs = 0;
   if (!cb_clo.sharing) return n * sizeof(sim_call);
   for (k = 0; k < n; k++) accs += calls[k].n_acc;
   return n * sizeof(sim_call) + (n + 1) * sizeof(UInt) + accs * sizeof(sh_site);
}

/* With --bandwidth=yes, batched, the block's static bytes follow (after
 * the sharing part, 8-aligned: cb_bw_block_make). */
SizeT cb_sim_calls_bytes(const sim_call *calls, UInt n)
{
   SizeT bytes = calls_and_sites_bytes(calls, n);
   if (!cb_bw_batched) return bytes;
   return VG_ROUNDUP(bytes, 8) + cb_bw_block_bytes(calls, n);
}

struct cb_bw_block *cb_sim__bw_block_shared(const sim_call *calls, UInt n)
{
   SizeT at = calls_and_sites_bytes(calls, n);
   return (struct cb_bw_block *)((HChar *)calls + VG_ROUNDUP(at, 8));
}


/* (the sites are left unknown: kinds 0) */
void cb_sim_share_calls_made(sim_call *calls, UInt n)
{
   UInt k, *first = cb_share_first(calls, n);
   if (!cb_clo.sharing) return;
   first[0] = 0;
   for (k = 0; k < n; k++) first[k + 1] = first[k] + calls[k].n_acc;
   VG_(memset)(cb_share_sites(calls, n), 0, first[n] * sizeof(sh_site));
}

/* The site of access i of call c of bb's block. */
static sh_site share_site(const BB *bb, const sim_call *c, Int i)
{
   Addr instr = bb->addr + bb->instr[c->acc[i].cost / cb_n_events].offset;
   sh_site s;
   s.pos_id = sh_position(cb_fs_model, instr);
   s.size = c->acc[i].size;
   s.kinds = c->acc[i].modify ? 3 : c->acc[i].write ? 2 : 1;
   return s;
}

static void fill_sites(const BB *bb, const sim_call *c, const sim_call *end, sh_site *s)
{
   Int i;
   for (; c < end; c++)
      for (i = 0; i < c->n_acc; i++) *s++ = share_site(bb, c, i);
}

/* Calls of an older translation of the block (its BB has the new ones):
 * their sites made for this replay. */
static void share_block_slow(const BB *bb, const sim_call *c, const sim_call *end, const Addr *a)
{
   sh_site s[REPLAY_ADDRS];
   UInt n = 0;
   Int i;
   for (; c < end; c++)
      for (i = 0; i < c->n_acc; i++) s[n++] = share_site(bb, c, i);
   sh_access_block(cb_fs_model, cb_cur.tid, s, (const uint64_t *)a, n);
}

/* The deferred simulation's calls c..end, with their addresses a (a
 * guarded access not made is REPLAY_SKIPPED, which is sharing.h's
 * SH_SKIPPED), in the order the helpers would have made them. The cache
 * model does not see what the sharing model does, nor the other way, so
 * the block's accesses go to it in one call (before the replay). */
typedef char skipped_is_sh_skipped[REPLAY_SKIPPED == SH_SKIPPED ? 1 : -1];

void cb_sim_share_block(const sim_call *c, const sim_call *end, const Addr *a)
{
   const BB *bb;
   const sim_call *calls;
   UInt n, *first;
   sh_site *sites;
   if (!cb_cur.collect) return;
   bb = cb_cur.bbcc->bb;
   calls = bb->sim_calls;
   n = bb->n_sim_calls;
   if (c < calls || c >= calls + n) {
      share_block_slow(bb, c, end, a);
      return;
   }
   first = cb_share_first(calls, n);
   sites = cb_share_sites(calls, n);
   if (first[n] > 0 && sites[0].kinds == 0) fill_sites(bb, calls, calls + n, sites);
   sh_access_block(cb_fs_model, cb_cur.tid, sites + first[c - calls], (const uint64_t *)a,
                   first[end - calls] - first[c - calls]);
}

VG_REGPARM(1) void cb_sim_log_F(sim_call *c) { COUNT_CALL(); do_fetch(c); }
VG_REGPARM(2) void cb_sim_log_F1(sim_call *c, Addr a0) { COUNT_CALL(); do_fetch(c); do_acc(c, 0, a0); }
VG_REGPARM(3) void cb_sim_log_F2(sim_call *c, Addr a0, Addr a1)
{ COUNT_CALL(); do_fetch(c); do_acc(c, 0, a0); do_acc(c, 1, a1); }
void cb_sim_log_F3(sim_call *c, Addr a0, Addr a1, Addr a2)
{ COUNT_CALL(); do_fetch(c); do_acc(c, 0, a0); do_acc(c, 1, a1); do_acc(c, 2, a2); }
VG_REGPARM(2) void cb_sim_log_D1(sim_call *c, Addr a0) { COUNT_CALL(); do_acc(c, 0, a0); }
VG_REGPARM(3) void cb_sim_log_D2(sim_call *c, Addr a0, Addr a1)
{ COUNT_CALL(); do_acc(c, 0, a0); do_acc(c, 1, a1); }
void cb_sim_log_D3(sim_call *c, Addr a0, Addr a1, Addr a2)
{ COUNT_CALL(); do_acc(c, 0, a0); do_acc(c, 1, a1); do_acc(c, 2, a2); }

/* A late LL fill (cachesim.h) is made before the tool changes or reads
 * what its hooks see: the back-dating tree, the costs (cb_setup_bbcc when
 * a call or return may follow, cb_sim_catch_up). */
void cb_sim_settle(void)
{
   if (cb_sim_cache) cs_settle(cb_sim_cache);
}

/* Branch prediction runs even while collection is off, as the reference's. */
VG_REGPARM(2) void cb_sim_log_cond(sim_instr_info *ii, UWord taken)
{
   unsigned miss = bs_cond(cb_sim_bpred, ii->addr, taken);
   if (cb_cur.collect) {
      ULong *slot = slot_at(ii->cost_offset), *run = cb_cur.cost;
      slot[cb_event_pos(EV_Bc)]++; run[cb_event_pos(EV_Bc)]++;
      slot[cb_event_pos(EV_Bcm)] += miss; run[cb_event_pos(EV_Bcm)] += miss;
   }
}

VG_REGPARM(2) void cb_sim_log_ind(sim_instr_info *ii, Addr target)
{
   unsigned miss = bs_indirect(cb_sim_bpred, ii->addr, target);
   if (cb_cur.collect) {
      ULong *slot = slot_at(ii->cost_offset), *run = cb_cur.cost;
      slot[cb_event_pos(EV_Bi)]++; run[cb_event_pos(EV_Bi)]++;
      slot[cb_event_pos(EV_Bim)] += miss; run[cb_event_pos(EV_Bim)] += miss;
   }
}

/* --collect-bus: one global bus event per atomic instruction (a CAS, which
 * is what VEX makes of LOCK-prefixed instructions, or a store-conditional). */
VG_REGPARM(1) void cb_sim_log_bus(sim_instr_info *ii)
{
   if (cb_cur.collect) {
      slot_at(ii->cost_offset)[cb_event_pos(EV_Ge)]++;
      cb_cur.cost[cb_event_pos(EV_Ge)]++;
   }
}

/*------------------------------------------------------------*/
/*--- Start, dumps, end                                    ---*/
/*------------------------------------------------------------*/

/* After option parsing: the events, the caches' geometry, the models. */
void cb_sim_post_clo_init(void)
{
   cb_events_setup();
   cb_geometry_setup();
   if (cb_clo.simulate_cache) {
      const cb_cache_geometry *g = &cb_geom;
      cs_options o = { cb_clo.simulate_wb, cb_clo.simulate_hwpref, cb_clo.cacheuse,
                       cb_clo.objects };
      cb_sim_cache = cs_new(&g->i1, &g->d1, &g->ll, o, cb_clo.cacheuse ? &cb_bd_cache_hooks : NULL);
      if (cb_clo.cacheuse) cb_bd_use_charging(cb_sim_cache);
      if (g->has_l2) cs_set_l2(cb_sim_cache, &g->l2);
      if (cb_clo.prefetch_distance > 0) cs_set_stream_prefetch(cb_sim_cache, cb_clo.prefetch_distance);
      /* their events come after all others: declared last */
      if (cb_clo.miss_class) cb_mc_setup(cb_sim_cache, &g->i1, &g->d1, &g->ll);
      if (cb_clo.reuse_dist) cb_rd_setup(&g->ll);
      if (cb_clo.private_caches) cb_cores_setup(cb_sim_cache);
      cb_bw_setup(cb_sim_cache);               /* its events last, but for */
      if (cb_clo.latency) cb_lat_setup();      /* these */
      cb_sim_defer_on = cb_clo.defer_sim;
      /* (--bandwidth batched: its hooks are called in the counted
       * replay; with limits or unit flop they need each instruction's
       * cost slot in turn, and --latency's loop does not call them) */
      cb_sim_replay_plain_ok = cb_sim_defer_on && !CB_SIM_STATS && !cb_clo.objects
                               && !cb_clo.miss_class && !cb_clo.reuse_dist
                               && (!cb_clo.bandwidth || (cb_bw_batched && !cb_clo.latency));
      cb_sim_share_each = cb_clo.sharing && !cb_sim_defer_on;
      /* (--backdate-check's on_load counts at the running counter; the
       * cores share the LL, so a core's fills are made before another
       * core runs: cb_cores_switch, and coherence.c before a store
       * invalidates another core's copy) */
      if (cb_sim_replay_plain_ok && !cb_clo.backdate_check)
         cs_set_late_ll_fill(cb_sim_cache, 1);
   }
   if (cb_clo.branch_sim) cb_sim_bpred = bs_new();
   cb_bd_setup();
}

/* The profile's description of the simulation (desc: lines). */
void cb_sim_write_desc(cb_outfile *f)
{
   cb_geometry_write_desc(f);
   cb_bd_write_desc(f);
}

/* Zeroing: see cb_bd_zero; with private caches, for every core's. */
void cb_sim_zero(thread_info *only)
{
   UInt k;
   if (!cb_cc) {
      cb_bd_zero(cb_sim_cache && cb_clo.cacheuse ? cb_sim_cache : NULL, only);
      return;
   }
   cb_sim_settle();        /* the running core's fills, before any core's LL walk */
   for (k = 0; k < cb_cores_n(); k++)
      if (cb_cores_sim(k)) cb_bd_zero(cb_clo.cacheuse ? cb_cores_sim(k) : NULL, only);
}

/* --private-caches: the thread's core runs from now on (its caches and
 * its miss classifier). */
void cb_sim_switch_thread(ThreadId tid)
{
   cb_bw_switch_thread(tid);
   if (!cb_cc) return;
   cb_sim_cache = cb_cores_switch(tid);
   if (cb_clo.miss_class) cb_mc_switch_core(tid - 1);
}

/* At exit: every resident line leaves, every tree is pruned to its root. */
void cb_sim_finish(void)
{
   if (cb_sim_cache && cb_clo.cacheuse && cb_cc) {
      cb_cores_set_collect(cb_cur.collect);
      cb_cores_flush();
   } else if (cb_sim_cache && cb_clo.cacheuse) {
      if (cb_sim_cache->collect != cb_cur.collect) cs_set_collect(cb_sim_cache, cb_cur.collect);
      cs_flush(cb_sim_cache);
   }
   cb_bd_finish();
}

/* Instrumentation switched on or off: the reference empties the caches
 * and loses the use data of resident lines; we account it first. */
void cb_sim_clear(void)
{
   cb_bw_caches_cleared();
   if (cb_clo.latency) cb_lat_clear();
   if (cb_sim_cache && cb_cc) {
      if (cb_clo.cacheuse) cb_cores_flush();
      cb_cores_clear();
      cb_mc_clear();
      cb_rd_clear();
   } else if (cb_sim_cache) {
      if (cb_clo.cacheuse) cs_flush(cb_sim_cache);
      cs_clear(cb_sim_cache);
      cb_mc_clear();
      cb_rd_clear();
   }
   /* A call faked after the switch (a return with an empty stack) lasts
    * since then (instrument.c); what reached a tree's root before must
    * not climb through that call's arc: hand it over now, as a dump does. */
   cb_bd_settle();
}

/* "Sim helpers:" (CB_SIM_STATS builds): per 1000 guest instructions, the
 * helper calls from the generated code and the replays from C (with the
 * simulation calls they made); and the share of the I1 lookups and D1
 * accesses simulated that were L1 MRU hits. */
static void print_hot_stats(void)
{
   ULong n = cb_sim_hot.instrs ? cb_sim_hot.instrs : 1;
   ULong i = cb_sim_hot.i_mru + cb_sim_hot.i_other, d = cb_sim_hot.d_mru + cb_sim_hot.d_other;
   VG_(dmsg)("Sim helpers:       instrs %llu, calls %llu (%llu.%llu per 1000 instrs), "
             "replays %llu (%llu.%llu per 1000 instrs, %llu calls); "
             "simulated: I1 lookups %llu (MRU hits %llu), D1 accesses %llu (MRU hits %llu)\n",
             cb_sim_hot.instrs, cb_sim_hot.calls, cb_sim_hot.calls * 1000 / n,
             cb_sim_hot.calls * 10000 / n % 10, cb_sim_hot.replays, cb_sim_hot.replays * 1000 / n,
             cb_sim_hot.replays * 10000 / n % 10, cb_sim_hot.replayed,
             i, cb_sim_hot.i_mru, d, cb_sim_hot.d_mru);
}

void cb_sim_print_stats(void)
{
   if (CB_SIM_STATS && cb_sim_cache) print_hot_stats();
   if (cb_sim_cache && cb_clo.simulate_hwpref) {
      uint64_t up, down;
      if (cb_cc) {
         ULong u, d;
         cb_cores_prefetch_counts(&u, &d);
         up = u, down = d;
      } else cs_prefetch_counts(cb_sim_cache, &up, &down);
      VG_(dmsg)("Prefetch Up:       %llu\n", (ULong)up);
      VG_(dmsg)("Prefetch Down:     %llu\n", (ULong)down);
   }
   if (cb_cc) cb_cores_print_stats();
   cb_bd_print_stats();
}

/* --prefetch: the stream prefetcher's counts of the whole run, over all
 * cores (cs_stream_prefetch_counts). */
void cb_sim_stream_prefetch_counts(ULong *issued, ULong *used, ULong *unused)
{
   cs_spf_counts n;
   UInt k;
   *issued = *used = *unused = 0;
   for (k = 0; k < (cb_cc ? cb_cores_n() : 1); k++) {
      const cs_sim *s = cb_cc ? cb_cores_sim(k) : cb_sim_cache;
      if (!s) continue;
      cs_stream_prefetch_counts(s, &n);
      *issued += n.issued;
      *used += n.used;
      *unused += n.unused;
   }
}
