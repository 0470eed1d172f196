/* callgrind-bd: back-dating, the glue between the cache model's lines and
 * the back-dating trees (backdate/), which turns cache-use metrics into
 * exact inclusive costs of call arcs.
 *
 * Owns the forest of trees (one per execution context: a thread's flow or
 * a running signal handler, threads.c), the tree's calls and returns as
 * the shadow call stack makes them (callstack.c), and the lines' owners:
 *   - a line loaded into a cache remembers its owner: the cost slot of
 *     the loading instruction and the back-dating node active then
 *     (cs_owner, made by the helpers in sim.c);
 *   - when it leaves, AcCost/SpLoss are added to that slot (self cost) and
 *     to the node (inclusive cost), which delivers them to call arcs (JCC)
 *     when it is pruned, at a dump (settle) or at the end (finish);
 *   - zeroing makes resident lines forget their owner (cb_bd_zero).
 * With --backdate-check=yes the oracle events L1ld/LLld (counted at load)
 * and L1ldB/LLldB (counted at eviction through the trees) ride along.
 *
 * Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
 */
#include "global.h"
#include "cachesim.h"
#include "backdate.h"
#include "objects.h"

static bd_forest *forest;
static Bool trees_finished;     /* bd_finish ran: the final dump follows */

/* Back-dated counters, in the forest's order: the forest keeps the first
 * BD_L1B (cache use), BD_ACL2 (and the oracle's) or all (--L2). */
enum { BD_AC1, BD_SP1, BD_AC2, BD_SP2, BD_L1B, BD_LLB, BD_ACL2, BD_SPL2, BD_L2B,
       BD_PFU, BD_PFX, BD_MAX };

/* How many counters the forest keeps: the last group the options use. */
static Int forest_events(void)
{
   if (cb_clo.prefetch_distance > 0) return BD_MAX;
   if (cb_clo.l2_set) return BD_PFU;
   return cb_clo.backdate_check ? BD_ACL2 : BD_L1B;
}

/* A level of the cache model's hooks (1, 2 = LL, CS_LEVEL_L2): its
 * events and back-dated counters. */
typedef struct { event_id ac, sp, ld, ldb; Int bd_pair, bd_ldb; } level_events;

static const level_events *events_of(int level)
{
   static const level_events l1 = { EV_AcCost1, EV_SpLoss1, EV_L1ld, EV_L1ldB, BD_AC1, BD_L1B };
   static const level_events ll = { EV_AcCost2, EV_SpLoss2, EV_LLld, EV_LLldB, BD_AC2, BD_LLB };
   static const level_events l2 = { EV_AcCostL2, EV_SpLossL2, EV_L2ld, EV_L2ldB, BD_ACL2, BD_L2B };
   return level == 1 ? &l1 : level == CS_LEVEL_L2 ? &l2 : &ll;
}

/*------------------------------------------------------------*/
/*--- Owners: who loaded a line                            ---*/
/*------------------------------------------------------------*/

static inline ULong *owner_slot(const cs_owner *o)
{
   return (ULong *)((UWord)o->slot & ~CB_OWNER_COLLECTED);
}

static void on_load(void *ctx, int level, const cs_owner *o)
{
   if (o->node) bd_ref((bd_node *)o->node);
   if (cb_clo.backdate_check && ((UWord)o->slot & CB_OWNER_COLLECTED)) {
      Int p = cb_event_pos(events_of(level)->ld);
      owner_slot(o)[p]++;
      cb_cur.cost[p]++;
   }
}

static void on_evict(void *ctx, int level, const cs_owner *o, uint32_t accost, uint32_t sploss)
{
   ULong *slot = owner_slot(o);
   Bool counted = cb_clo.backdate_check && ((UWord)o->slot & CB_OWNER_COLLECTED);
   const level_events *le = events_of(level);
   Int pair = le->bd_pair;      /* this level's AcCost, SpLoss */

   if (!slot) return;           /* loaded before a zero: see cb_bd_zero */
   if (UNLIKELY(cb_clo.objects)) {
      cb_obj_evict(o, level, accost, sploss);
      /* --paths: the object as the last frame of the line's path, which
       * gets the metrics from the line's node (deliver_to_path) */
      if (cb_clo.paths && o->node)
         cb_paths_object_cost(bd_node_tag((bd_node *)o->node), cb_obj_of_owner(o),
                              le->ac, accost, le->sp, sploss);
   }

   slot[cb_event_pos(le->ac)] += accost;
   slot[cb_event_pos(le->sp)] += sploss;
   if (!o->node) {
      if (counted) slot[cb_event_pos(le->ldb)]++;
      return;
   }
   /* the common case: only this level's pair goes to the tree */
   if (!counted) {
      bd_evict2((bd_node *)o->node, pair, accost, sploss);
      return;
   }
   slot[cb_event_pos(le->ldb)]++;
   {
      /* --backdate-check only: the whole vector (zeroed here, not on
       * the common path above) */
      uint64_t bd[BD_MAX] = { 0 };
      bd[pair] = accost;
      bd[pair + 1] = sploss;
      bd[le->bd_ldb] = 1;
      bd_evict((bd_node *)o->node, bd);
   }
}

/* --prefetch with --cacheuse: a prefetched line leaves D1, used or not:
 * Pfu or Pfx to the instruction whose access triggered the prefetch (its
 * owner), and through the node to every call running then. Called just
 * before the line's on_evict, which drops the line's node reference: the
 * extra reference taken here is dropped at once by bd_evict. */
static void on_prefetch_end(void *ctx, const cs_owner *o, int used)
{
   ULong *slot = owner_slot(o);
   uint64_t bd[BD_MAX] = { 0 };
   /* as Pfi: only prefetches made while collecting; a slot of NULL: the
    * prefetch was made before a zero (cb_bd_zero) */
   if (!slot || !((UWord)o->slot & CB_OWNER_COLLECTED)) return;
   slot[cb_event_pos(used ? EV_Pfu : EV_Pfx)]++;
   if (!o->node) return;
   bd[used ? BD_PFU : BD_PFX] = 1;
   bd_ref((bd_node *)o->node);
   bd_evict((bd_node *)o->node, bd);
}

/* What the cache model tells about lines (cs_new's hooks). */
const cs_hooks cb_bd_cache_hooks = { NULL, on_load, on_evict, on_prefetch_end };

/* The cache model does on_load's and on_evict's common case itself
 * (cs_charging): the owner's slot is a cost array and its node a tree
 * node, as the hooks take them. Not with data objects or the oracle
 * events, whose work is the hooks'. */
void cb_bd_use_charging(struct cs_sim *sim)
{
   cs_charging ch;
   int level;
   if (cb_clo.objects || cb_clo.backdate_check) return;
   VG_(memset)(&ch, 0, sizeof ch);
   for (level = 1; level <= CS_LEVEL_L2; level++) {
      const level_events *le = events_of(level);
      if (level == CS_LEVEL_L2 && !cb_clo.l2_set) continue;
      ch.ac[level] = cb_event_pos(le->ac);
      ch.sp[level] = cb_event_pos(le->sp);
      ch.pair[level] = le->bd_pair;
   }
   cs_set_charging(sim, &ch);
}

/* The forest's n counters added to a cost array. */
static void add_backdated(ULong *cost, const uint64_t *c, int n)
{
   cost[cb_event_pos(EV_AcCost1)] += c[BD_AC1];
   cost[cb_event_pos(EV_SpLoss1)] += c[BD_SP1];
   cost[cb_event_pos(EV_AcCost2)] += c[BD_AC2];
   cost[cb_event_pos(EV_SpLoss2)] += c[BD_SP2];
   if (n > BD_L1B && cb_clo.backdate_check) {
      cost[cb_event_pos(EV_L1ldB)] += c[BD_L1B];
      cost[cb_event_pos(EV_LLldB)] += c[BD_LLB];
   }
   if (n > BD_ACL2 && cb_clo.l2_set) {
      cost[cb_event_pos(EV_AcCostL2)] += c[BD_ACL2];
      cost[cb_event_pos(EV_SpLossL2)] += c[BD_SPL2];
      if (cb_clo.backdate_check) cost[cb_event_pos(EV_L2ldB)] += c[BD_L2B];
   }
   if (n > BD_PFU) {                  /* --prefetch */
      cost[cb_event_pos(EV_Pfu)] += c[BD_PFU];
      cost[cb_event_pos(EV_Pfx)] += c[BD_PFX];
   }
}

/* --paths: counters leaving a tree node (backdate.h, bd_forest_tags) are
 * the self cost of its path and no more of its parent's: each path gets
 * the metrics of the lines loaded on it, at no cost per eviction (the
 * cache model keeps charging inline). Complete whenever the trees are
 * settled: before every dump and zero, and at the end. */
static const event_id counted_as[BD_MAX] = {
   EV_AcCost1, EV_SpLoss1, EV_AcCost2, EV_SpLoss2, EV_L1ldB, EV_LLldB,
   EV_AcCostL2, EV_SpLossL2, EV_L2ldB, EV_Pfu, EV_Pfx };
/* Each counter's position in the costs (negative: not an event of the
 * run), found once (cb_bd_setup) rather than per counter and delivery. */
static Int path_pos[BD_MAX];

static void deliver_to_path(void *ctx, void *path, void *parent_path, const uint64_t *c, int n)
{
   /* the same path on both sides (a recursion gone back to its node):
    * what it gains it loses */
   if (path != parent_path) cb_paths_move_backdated(path, parent_path, path_pos, (const ULong *)c, n);
}

/* Back-dated costs reaching a call arc. */
static void deliver(void *ctx, void *arc, const uint64_t *c, int n)
{
   add_backdated(((JCC *)arc)->cost, c, n);
}

void cb_bd_setup(void)
{
   if (!cb_clo.backdate) return;
   forest = bd_forest_new(forest_events(), deliver, NULL);
   /* --paths: every node knows the call path of its chain */
   if (cb_clo.paths) {
      Int i;
      for (i = 0; i < BD_MAX; i++) path_pos[i] = cb_event_pos(counted_as[i]);
      bd_forest_tags(forest, cb_paths_tag, deliver_to_path, NULL);
   }
}

/*------------------------------------------------------------*/
/*--- Trees: one per execution context                     ---*/
/*------------------------------------------------------------*/

/* The live view (monitor.c): for each level of es's chain in its tree
 * (0 the root, j the j-th call's node), arcs[j] and the back-dated costs
 * known so far in its subtree (lines loaded under it that have left the
 * cache), as the cost array at known + j * cb_n_events (zeroed here).
 * Returns the number of levels (at most max). */
Int cb_bd_known_so_far(const exec_state *es, void **arcs, ULong *known, Int max)
{
   uint64_t *bd;
   Int levels, j, n;
   if (!forest || !es->bd || max <= 0) return 0;
   n = bd_forest_events(forest);
   bd = CB_MALLOC("cb.bd.known", (SizeT)max * n * sizeof *bd);
   levels = bd_chain_known(es->bd, arcs, bd, max);
   VG_(memset)(known, 0, (SizeT)levels * cb_n_events * sizeof *known);
   for (j = 0; j < levels; j++)
      add_backdated(known + (SizeT)j * cb_n_events, bd + (SizeT)j * n, n);
   CB_FREE(bd);
   return levels;
}

struct bd_tree *cb_bd_new_tree(path_node *root_path)
{
   bd_tree *t = forest ? bd_tree_new(forest) : NULL;
   if (t) bd_set_root_tag(t, root_path);
   return t;
}

void cb_bd_close_tree(struct bd_tree *t)
{
   if (t) bd_tree_close(t);
}

/* A dump or zero restarts what a call faked later (a return from an empty
 * stack) covers: only what happens from now on. So lines loaded so far
 * must not reach it: the context's tree is closed (its nodes stay while
 * lines reference them, and deliver to the arcs of their load-time chain
 * as before) and a new tree takes over the running calls. */
void cb_bd_restart_tree(exec_state *es, const call_entry *frames, Int n)
{
   Int i;
   if (!es->bd || trees_finished) return;
   bd_tree_close(es->bd);
   es->bd = cb_bd_new_tree(es->path_root);
   for (i = 0; i < n; i++)
      if (frames[i].bd_pushed && frames[i].jcc) bd_call(es->bd, frames[i].jcc);
}

/* --paths: the context's root path changed (instrument.c); the tree's
 * root takes its tag, the tree is unchanged (the profile too). */
void cb_bd_retag_root(exec_state *es)
{
   if (es->bd) bd_set_root_tag(es->bd, es->path_root);
}

void cb_bd_call(JCC *jcc)
{
   if (cb_cur.es && cb_cur.es->bd) bd_call(cb_cur.es->bd, jcc);
}

void cb_bd_adopt_root(JCC *jcc)
{
   if (!cb_cur.es || !cb_cur.es->bd) return;
   bd_adopt_root(cb_cur.es->bd, jcc);
   bd_set_root_tag(cb_cur.es->bd, cb_cur.es->path_root);   /* --paths */
}

void cb_bd_return(Int levels)
{
   if (cb_cur.es && cb_cur.es->bd) bd_return(cb_cur.es->bd, levels);
}

/*------------------------------------------------------------*/
/*--- Dumps, zeroing, end                                  ---*/
/*------------------------------------------------------------*/

/* Before an intermediate dump, and when instrumentation is switched:
 * metrics already known reach their arcs; lines still resident are
 * accounted later. */
void cb_bd_settle(void)
{
   if (forest) bd_settle(forest);
}

/* Does a line's back-dating node belong to one of t's live contexts?
 * (Trees of signal handlers that have returned are not found.) */
static Bool node_of_thread(const bd_node *nd, const thread_info *t)
{
   bd_tree *tree = bd_node_tree(nd);
   Int s;
   for (s = 0; s <= t->states_sp; s++)
      if (t->states[s] && t->states[s]->bd == tree) return True;
   return False;
}

static int forget_owner(void *ctx, int level, const cs_owner *o)
{
   const thread_info *only = ctx;
   if (only && (!o->node || !node_of_thread(o->node, only))) return 0;
   if (o->node) bd_evict((bd_node *)o->node, NULL);
   return 1;
}

/* Zeroing (ZERO_STATS, the zero monitor command, --zero-before) discards
 * the costs of the past, so also the metrics still to come from lines the
 * past loaded: what is pending in the trees reaches its arcs now (to be
 * zeroed with them), and resident lines of sim (NULL: no cache use
 * simulated) forget their owner, so no back-dated metric of a line loaded
 * before the zero is ever written, just as its immediate counts are not.
 * The cache itself is untouched. only: the one thread being zeroed
 * (--separate-threads=yes), whose lines are told by their back-dating
 * node; NULL for all threads. */
void cb_bd_zero(struct cs_sim *sim, thread_info *only)
{
   if (forest) bd_settle(forest);
   if (sim) cs_forget_owners(sim, forget_owner, only);
}

/* At exit, after every resident line has left: every tree is pruned to
 * its root. */
void cb_bd_finish(void)
{
   if (forest) bd_finish(forest);
   trees_finished = True;
}

void cb_bd_write_desc(cb_outfile *f)
{
   bd_stats st;
   if (!forest) return;
   bd_get_stats(forest, &st);
   cb_out_printf(f, "desc: Backdate: trees %llu, nodes now %llu, max %llu, average %llu\n",
                 (ULong)st.trees, (ULong)st.nodes_now, (ULong)st.nodes_max,
                 (ULong)st.nodes_avg);
   cb_out_printf(f, "desc: Backdate: nodes created %llu, pruned %llu, calls %llu, arcs %llu\n",
                 (ULong)st.nodes_created, (ULong)st.nodes_pruned, (ULong)st.calls,
                 cb_stat.distinct_jccs);
}

void cb_bd_print_stats(void)
{
   bd_stats st;
   if (!forest) return;
   bd_get_stats(forest, &st);
   VG_(dmsg)("Backdate trees:    %llu (live), nodes now %llu, max %llu, average %llu\n",
             (ULong)st.trees, (ULong)st.nodes_now, (ULong)st.nodes_max, (ULong)st.nodes_avg);
   VG_(dmsg)("Backdate nodes:    created %llu, pruned %llu; calls %llu; arcs %llu; %lu bytes/node\n",
             (ULong)st.nodes_created, (ULong)st.nodes_pruned, (ULong)st.calls,
             cb_stat.distinct_jccs, bd_node_bytes(forest));
}
