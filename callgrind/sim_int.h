/* callgrind-bd: what the simulation's three files share, private to them
 * (the rest of the tool sees global.h's section "sim.c, sim_replay.c,
 * sim_ir.c"):
 *
 *   sim.c         the models of the run, their start, dumps and end, and
 *                 the helpers the generated code calls (--defer-sim=no;
 *                 the branch and bus helpers always)
 *   sim_replay.c  the deferred simulation: the same calls replayed from C
 *                 at the tool's next entry, counted per block run
 *   sim_ir.c      the instrumentation: fetch groups, accesses, the calls
 *                 (or the stores of their addresses) in the IR
 *
 * The hot path below (an instruction fetch, a data access) is inline
 * here because the helpers and the replay both run it: one source,
 * compiled into each.
 *
 * Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
 */
#ifndef CB_SIM_INT_H
#define CB_SIM_INT_H

#include "global.h"
#include "cachesim.h"
#include "branchsim.h"
#include "backdate.h"
#include "objects.h"
#include "cores.h"
#include "bandwidth_hooks.h"

/* Statistics of the hot path, for measuring it (issue 21): build with
 * `make CPPFLAGS=-DCB_SIM_STATS=1` and run with -v; printed at exit as
 * "Sim helpers:" (perf/helper-stats.py). Off by default, so they cost
 * nothing: counting in the helpers would slow the path they measure. A
 * statistics build replays every call one by one (replay_all), so that
 * the MRU shares count the accesses of both settings. */
#ifndef CB_SIM_STATS
#define CB_SIM_STATS 0
#endif

/* Where the simulation's time goes, by subtraction (perf/decompose.sh):
 * a build with `CPPFLAGS=-DCB_SIM_CUT=k` stops the deferred simulation
 * after stage k, so the profile is WRONG in such a build: 1 = no replay,
 * 2 = the replay loop and histogram only, 3 = and the I1 tests, 4 = and
 * the D1 MRU tests, 5 = and the call for a D1 access that is no MRU hit,
 * which returns at once. 0 (the default): everything. */
#ifndef CB_SIM_CUT
#define CB_SIM_CUT 0
#endif
#define CUT_BEFORE(k) (CB_SIM_CUT > 0 && CB_SIM_CUT < (k))

typedef struct {
   ULong instrs;            /* guest instructions (counted in IR) */
   ULong calls;             /* helper calls from the generated code: the
                               simulation helpers, or cb_sim_replay_part */
   ULong replays, replayed; /* deferred: replays from C, the calls in them */
   ULong i_mru, i_other;    /* I1 lookups: MRU hits, the rest */
   ULong d_mru, d_other;    /* D1 accesses: MRU hits, the rest */
} cb_sim_hot_stats;
extern cb_sim_hot_stats cb_sim_hot;
#define COUNT_CALL() do { if (CB_SIM_STATS) cb_sim_hot.calls++; } while (0)

/* The run's models (cb_sim_post_clo_init; with --private-caches the
 * cache model of the running thread's core, cb_sim_switch_thread). */
extern cs_sim *cb_sim_cache;
extern bs_sim *cb_sim_bpred;

/*------------------------------------------------------------*/
/*--- The hot path: one fetch, one data access             ---*/
/*------------------------------------------------------------*/

/* With --cache-sim=yes the first nine events are always Ir Dr Dw I1mr D1mr
 * D1mw ILmr DLmr DLmw, at positions 0..8 (cb_events_setup asserts it), so the
 * hot path adds to constant offsets instead of reading cb_ev_pos[] for
 * every access. */
#define HOT_POS(e) ((Int)(e))

/* Cost slot of the running BBCC's instruction at a cost offset (index *
 * cb_n_events): skipped code charges its caller. */
static inline ULong *slot_at(UInt cost_offset)
{
   return cb_cur.nonskipped ? cb_cur.nonskipped->skipped : cb_cost_base + cost_offset;
}

/* Built only for an access that is no L1 MRU hit: an MRU hit (almost
 * every access) needs no owner, and neither does it depend on the
 * simulator's collect flag. */
static inline const cs_owner *make_owner(cs_owner *o, ULong *slot)
{
   if (!cb_clo.cacheuse) return NULL;
   cs_settle_hooks(cb_sim_cache);   /* a late LL fill's hooks before the tree grows */
   o->slot = (void *)((UWord)slot | (cb_cur.collect ? CB_OWNER_COLLECTED : 0));
   o->node = (cb_clo.backdate && cb_cur.es->bd) ? bd_active(cb_cur.es->bd) : NULL;
   o->obj = NULL;
   if (UNLIKELY(cb_sim_cache->collect != cb_cur.collect)) cs_set_collect(cb_sim_cache, cb_cur.collect);
   return o;
}

/* The outcome below L1 when it has a bit only --L2 or --prefetch set
 * (CS_L2_MISS, CS_PF_ISSUED): the L2 misses, the LL's (with an L2 their
 * positions are 3 later, so through cb_ev_pos) and the prefetches issued.
 * Only called on such outcomes: off the hit path. */
__attribute__((noinline))
void cb_sim_count_l2_prefetch(ULong *slot, unsigned r, event_id l1, event_id ll, event_id dirty);

/* Add an access's miss events (r: an L1 miss, or with --prefetch Pfi). */
static inline void count_misses(ULong *slot, unsigned r, event_id l1, event_id ll, event_id dirty)
{
   ULong *run = cb_cur.cost;
   if (r & CS_L1_MISS) { slot[HOT_POS(l1)]++; run[HOT_POS(l1)]++; }
   if (UNLIKELY(r >= CS_L2_MISS)) { cb_sim_count_l2_prefetch(slot, r, l1, ll, dirty); return; }
   if (r & CS_LL_MISS) {
      slot[HOT_POS(ll)]++; run[HOT_POS(ll)]++;
      if ((r & CS_LL_DIRTY_MISS) && cb_event_pos(dirty) >= 0) { slot[cb_event_pos(dirty)]++; run[cb_event_pos(dirty)]++; }
   }
}

/* Add an access's outcome: the access event and the miss events. */
static inline void count(ULong *slot, unsigned r, event_id ev, event_id l1, event_id ll, event_id dirty)
{
   slot[HOT_POS(ev)]++; cb_cur.cost[HOT_POS(ev)]++;
   if (UNLIKELY(r != 0)) count_misses(slot, r, l1, ll, dirty);
}

static inline unsigned do_instr_at(ULong *slot, Addr a, UWord size)
{
   unsigned r = 0;
   cs_probe p;
   Bool hit = cs_instr_hit(cb_sim_cache, a, size);
   if (CB_SIM_STATS) { if (hit) cb_sim_hot.i_mru++; else cb_sim_hot.i_other++; }
   if (!hit && !cs_l1_probe(cb_sim_cache, &p, 1, a, size)) {   /* (another way: a hit) */
      cs_owner o;
      const cs_owner *ow = make_owner(&o, slot);
      if (UNLIKELY(cb_clo.objects)) cb_obj_instr_owner((cs_owner *)ow);
      r = cs_l1_finish(cb_sim_cache, &p, a, size, ow, 0);
   }
   if (cb_cur.collect) count(slot, r, EV_Ir, EV_I1mr, EV_ILmr, EV_ILdmr);
   if (UNLIKELY(cb_clo.miss_class) && (r || !cb_mc_same_i1_line(a, size)))
      cb_mc_instr(slot, a, size, r);
   return r;
}

/* A data access. Data objects (objects.h): the accessed object's cell
 * rides in the owner of the lines the access loads, and gets the access's
 * outcome; ii is the accessing instruction (NULL unless --objects=yes).
 * Always inlined with a constant is_write, so each caller gets the code
 * of one kind of access. */
static inline __attribute__((always_inline))
unsigned do_data_at(ULong *slot, sim_instr_info *ii, Addr a, UWord size, Bool is_write)
{
   unsigned r = 0, cc = 0;
   cs_probe p;
   cb_obj_ref ref = { NULL, 0 };
   Bool hit = is_write ? cs_write_hit(cb_sim_cache, a, size) : cs_read_hit(cb_sim_cache, a, size);
   if (CB_SIM_STATS) { if (hit) cb_sim_hot.d_mru++; else cb_sim_hot.d_other++; }
   if (!hit && !cs_l1_probe(cb_sim_cache, &p, 0, a, size)) {   /* (another way: a hit) */
      cs_owner o;
      const cs_owner *ow = make_owner(&o, slot);
      if (UNLIKELY(cb_clo.objects)) ref = cb_obj_before(ii, a, (cs_owner *)ow);
      r = cs_l1_finish(cb_sim_cache, &p, a, size, ow, is_write);
   } else if (UNLIKELY(cb_clo.objects)) ref = cb_obj_before(ii, a, NULL);
   if (cb_cur.collect) {
      if (is_write) count(slot, r, EV_Dw, EV_D1mw, EV_DLmw, EV_DLdmw);
      else count(slot, r, EV_Dr, EV_D1mr, EV_DLmr, EV_DLdmr);
      if (UNLIKELY(cb_clo.objects)) cb_obj_count(ref, r, is_write);
   }
   if (UNLIKELY(cb_cc != NULL)) cc = cb_cores_data_access(slot, ref, a, size, r, is_write);
   if (UNLIKELY(cb_clo.miss_class)) cb_mc_data(slot, a, size, r, CC_CLASS(cc) != 0);
   if (UNLIKELY(cb_clo.reuse_dist)) cb_rd_data(slot, a, size);
   return r | (CC_CLASS(cc) ? CB_BW_REMOTE : 0) | (CC_INV(cc) ? CB_BW_INVALIDATED : 0);
}

/* One helper call simulates a fetch group and/or up to three data
 * accesses (sim_ir.c says how they are formed).
 * Fetch group: n_fetch instructions from fetch_addr, fetch_len bytes in
 * all, contiguous and inside one I1 line; the first is looked up, the
 * others are I1 MRU hits by construction (cs_instr_hits). Each access is
 * charged to the cost slot of its instruction (offset acc[i].cost). The
 * descriptor is self-contained: no per-instruction table is read. */
typedef struct sim_call {
   Addr     fetch_addr;      /* the group's first instruction */
   UInt     fetch_cost;      /* its cost offset; the others follow */
   UShort   fetch_size;      /* its size */
   UShort   n_fetch, fetch_len;
   UChar    n_acc;
   UChar    guarded;         /* its one access runs only under a guard */
   struct { UInt cost; UShort size; UChar write, modify; } acc[3];
   UInt     fplan_second;    /* the plan's second line, if it crosses one */
   cs_fetch_plan fplan;      /* the group's I1 lookup, worked out once */
} sim_call;
/* (one host cache line: fplan_second fills what was padding) */
typedef char sim_call_is_64_bytes[sizeof(sim_call) == 64 ? 1 : -1];

/* Ir of the group's n instructions after the first: they hit. Their cost
 * slots follow the first one's, cb_n_events apart. */
static inline void count_more_fetches(UInt first_cost, UInt n)
{
   UInt k;
   if (!cb_cur.collect) return;
   if (cb_cur.nonskipped) cb_cur.nonskipped->skipped[HOT_POS(EV_Ir)] += n;
   else {
      ULong *s = cb_cost_base + first_cost + HOT_POS(EV_Ir);
      for (k = 1; k <= n; k++) s[k * cb_n_events]++;
   }
   cb_cur.cost[HOT_POS(EV_Ir)] += n;
}

static inline void do_fetch(const sim_call *c)
{
   ULong *slot = slot_at(c->fetch_cost);
   unsigned r = do_instr_at(slot, c->fetch_addr, c->fetch_size);
   if (UNLIKELY(cb_bw_cur != NULL)) cb_bw_fetch(c->fetch_cost, c->n_fetch, slot, r);
   if (c->n_fetch > 1) {
      cs_instr_hits(cb_sim_cache, c->fetch_addr + c->fetch_size, c->fetch_addr + c->fetch_len - 1,
                    c->n_fetch - 1);
      count_more_fetches(c->fetch_cost, c->n_fetch - 1);
   }
}

/* The accessing instruction's info, for --objects=yes (the per-instruction
 * table is built then): cost offsets are instruction index * events. */
static inline sim_instr_info *acc_instr(const sim_call *c, Int i)
{
   if (LIKELY(!cb_clo.objects)) return NULL;
   return &cb_cur.bbcc->bb->sim_instr[c->acc[i].cost / cb_n_events];
}

/* What the replay's loop sees of a block's program (latency.c): per
 * access, what a hit's tags depend on. A hit changes no tag when it is
 * quiet (a read whose value no address, stored value or register
 * depends on), or when its address and stored value come from registers
 * without a tag, from no access of the block with one, and the address
 * holds no stored value with a tag (cb_lat_now). */
typedef struct {
   UShort regs;           /* the registers its address, stored value come from */
   UChar  accs;           /* and whether accesses of the block too */
   UChar  quiet;
} lat_watch;
struct lat_block_head {
   const struct sim_call *calls;   /* the translation's calls it describes */
   UInt   n_calls;
   UInt  *first_acc;               /* per call: index of its first access */
   lat_watch *watch;
};
static inline Bool cb_lat_hit_matters(const lat_watch *w, Addr a)
{
   const lat_mem *m = cb_lat_now.mem;
   return !w->quiet && ((w->regs & cb_lat_now.hot) || (w->accs && cb_lat_now.block)
                        || cb_lat_now.unknown
                        || (m && m[(a >> 3) & (LAT_MEM_SLOTS - 1)].addr == a));
}
/* The index of c's first access, and the block's watch list; False if
 * c is not the block's (an older translation's calls). */
static inline Bool cb_lat_first(const struct sim_call *c, UInt *idx, const lat_watch **watch)
{
   const struct lat_block_head *h = (const struct lat_block_head *)cb_cur.bbcc->bb->lat;
   UInt k;
   if (!h) return False;
   k = c - h->calls;
   if (k >= h->n_calls) return False;
   *idx = h->first_acc[k];
   *watch = h->watch;
   return True;
}

/* --sharing=yes: the access, with its instruction's address, when the
 * helpers run in place (cb_sim_share_each); the deferred simulation hands
 * a block's accesses over at once (cb_sim_share_block). A BB's calls
 * carry their accesses' sites after them (sim.c). */
extern Bool cb_sim_share_each;
void cb_sim_share_acc(const sim_call *c, Int i, Addr a);
void cb_sim_share_block(const sim_call *c, const sim_call *end, const Addr *a);

static inline UInt *cb_share_first(const sim_call *calls, UInt n)
{
   return (UInt *)(calls + n);
}

static inline sh_site *cb_share_sites(const sim_call *calls, UInt n)
{
   return (sh_site *)(cb_share_first(calls, n) + n + 1);
}

/* The common case, inline in the replay, without the BB (mostly a host
 * cache miss, where the cost centre is at hand): calls c..end are in the
 * array the cost centre's histogram counts, and its sites are known. An
 * array's sites are filled from its BB while it is the BB's current one,
 * and what they hold (instruction address, size, kinds) does not change
 * when a retranslation gives the BB a new array, so they are the sites
 * cb_sim_share_block would make. False if not such (nothing done). */
static inline Bool cb_sim_share_hist(const sim_call *c, const sim_call *end, const Addr *a)
{
   const BBCC *b = cb_cur.bbcc;
   const sim_call *calls = b->hist_calls;
   UInt n = b->hist_n, *first;
   const sh_site *sites;
   if (!cb_cur.collect) return True;
   if (c < calls || c >= calls + n) return False;
   first = cb_share_first(calls, n);
   sites = cb_share_sites(calls, n);
   if (first[n] > 0 && sites[0].kinds == 0) return False;
   sh_access_block(cb_fs_model, cb_cur.tid, sites + first[c - calls], (const uint64_t *)a,
                   first[end - calls] - first[c - calls]);
   return True;
}
SizeT cb_sim_calls_bytes(const sim_call *calls, UInt n);
/* --bandwidth=yes, batched: the static bytes after a block's n calls
 * (after its sharing part, if any: cb_sim_calls_bytes) */
struct cb_bw_block *cb_sim__bw_block_shared(const sim_call *calls, UInt n);
static inline struct cb_bw_block *cb_sim_bw_block(const sim_call *calls, UInt n)
{
   if (LIKELY(!cb_clo.sharing)) return (struct cb_bw_block *)(calls + n);
   return cb_sim__bw_block_shared(calls, n);
}
void cb_sim_share_calls_made(struct sim_call *calls, UInt n);

static inline void do_acc(const sim_call *c, Int i, Addr a)
{
   ULong *slot = slot_at(c->acc[i].cost);
   unsigned r;
   if (c->acc[i].write) r = do_data_at(slot, acc_instr(c, i), a, c->acc[i].size, True);
   else r = do_data_at(slot, acc_instr(c, i), a, c->acc[i].size, False);
   if (UNLIKELY(cb_bw_cur != NULL))
      cb_bw_data(c->acc[i].cost, a, c->acc[i].size, r, c->acc[i].write, c->acc[i].modify);
   if (UNLIKELY(cb_sim_share_each)) cb_sim_share_acc(c, i, a);
   if (UNLIKELY(cb_clo.latency)) cb_lat_after_access(c, i, a, r, slot);
}

/*------------------------------------------------------------*/
/*--- Between the files                                    ---*/
/*------------------------------------------------------------*/

/* Deferred simulation (sim_replay.c): the addresses the generated code
 * stores, a guarded access's as REPLAY_SKIPPED when its guard is false. */
#define REPLAY_ADDRS    64       /* data accesses of one block before it is replayed in parts */
#define REPLAY_SKIPPED  (~(Addr)0)
extern Addr cb_sim_replay_addr[REPLAY_ADDRS];
extern Bool cb_sim_defer_on;         /* deferred (cb_sim_post_clo_init) */
extern Bool cb_sim_replay_plain_ok;  /* and no feature needs each access */
void cb_sim_replay_part(void);       /* a long block's calls so far */

/* The helpers the instrumentation calls (sim.c): a fetch group (F) and/or
 * up to three data accesses; a conditional branch, an indirect jump, an
 * atomic instruction's bus event. */
VG_REGPARM(1) void cb_sim_log_F(sim_call *c);
VG_REGPARM(2) void cb_sim_log_F1(sim_call *c, Addr a0);
VG_REGPARM(3) void cb_sim_log_F2(sim_call *c, Addr a0, Addr a1);
void cb_sim_log_F3(sim_call *c, Addr a0, Addr a1, Addr a2);
VG_REGPARM(2) void cb_sim_log_D1(sim_call *c, Addr a0);
VG_REGPARM(3) void cb_sim_log_D2(sim_call *c, Addr a0, Addr a1);
void cb_sim_log_D3(sim_call *c, Addr a0, Addr a1, Addr a2);
VG_REGPARM(2) void cb_sim_log_cond(sim_instr_info *ii, UWord taken);
VG_REGPARM(2) void cb_sim_log_ind(sim_instr_info *ii, Addr target);
VG_REGPARM(1) void cb_sim_log_bus(sim_instr_info *ii);

#endif
