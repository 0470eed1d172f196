/* callgrind-bd: --paths=yes, the per-call work inlined into the call
 * tracker's push and pop (callstack.c): the common call (the arc's memo
 * knows the node) and every return cost no out-of-line call, and read
 * only lines the push and pop read or write anyway, beside the node left
 * (perf/RESULTS.md, session 26). Everything else is paths.c's.
 *
 * Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
 */
#ifndef CB_PATHS_H
#define CB_PATHS_H

#include "global.h"

#define CB_PATHS_KIDS 4

/* A node of a context's calling-context tree (paths.c). 32 bytes and the
 * costs (the smaller the nodes, the less of the host's caches they take
 * from the program's data; perf/RESULTS.md, session 21): the function and
 * its recursion level in one number, a node's thread only in its root,
 * four kept calls with 8-bit tags (a tag that matches another function
 * costs a read of that node, 1 in 256): fewer lookups in the table, and
 * fewer children in it. */
struct path_node {
   UInt       fn;            /* the function at its recursion level (fn_blocks);
                              * 0: a root not named yet */
   UInt       id;            /* 1, 2, ... in the order made: its id in the files */
   UInt       parent;        /* its caller's node's id; a context's root:
                              * ROOT_BIT | its thread */
   /* where the first KIDS calls from here went (a child or an ancestor),
    * by a tag of the function: found in the node the call starts from,
    * hot already, where the table's slot would be a host cache miss */
   UInt       kid_id[CB_PATHS_KIDS];  /* 0: a free entry */
   UChar      kid_tag[CB_PATHS_KIDS];
   ULong      cost[0];       /* self cost of the path, cb_n_events long */
};

/* With --paths a JCC is followed by its memo (cb_paths_jcc_bytes): the
 * call path the arc was last taken from and the node it led to. An arc
 * is mostly taken from the same path again (its caller runs in one
 * context), which spares the lookup. And the callee's number, which
 * never changes once known (0 before): a lookup reads no cost centre or
 * context for it. */
typedef struct {
   path_node *from, *to;
   UInt       fn;
} cb_paths_memo;

static inline cb_paths_memo *cb_paths_memo_of(JCC *jcc)
{
   return (cb_paths_memo *)(jcc + 1);
}

/* How many positions of the costs a charge covers (paths.c). */
extern Int cb_paths_charged;

/* cost += now - snap, snap = now over n events; the three arrays apart
 * (restrict: the pointers are not loaded again after every store). One
 * counter at a time: the running counter's were just stored one by one,
 * and a load of two would wait for them (no store forwarding into a
 * wider load; two counters at once made --cacheuse runs slower). */
static inline void cb_paths_add_growth(ULong *restrict cost, ULong *restrict snap,
                                       const ULong *restrict now, Int n)
{
   Int i;
   for (i = 0; i < n; i++) {
      cost[i] += now[i] - snap[i];
      snap[i] = now[i];
   }
}

/* The running counter's growth since the last move, to n (es's current
 * node, named). */
static inline void cb_paths_charge_named(exec_state *es, path_node *n)
{
   cb_paths_add_growth(n->cost, es->path_snap, es->cost, cb_paths_charged);
}

/* The current node moves from cur (charged its growth) to `to`, whose
 * line the next move's charge wants: on its way while the code runs. */
static inline void cb_paths_move(exec_state *es, path_node *cur, path_node *to)
{
   cb_paths_charge_named(es, cur);
   es->path_cur = to;
   __builtin_prefetch(to, 1);
}

/* The rare cases, out of line (paths.c): a call the memo does not know,
 * a faked call, a current node that is an unnamed root. */
void cb_paths_call_slow(call_entry *e, JCC *jcc, Bool faked);
void cb_paths_return_slow(call_entry *e);

/* A frame is pushed for jcc (not a skipped function's): e remembers the
 * node to go back to; the current node moves to the arc's. A call that
 * stays on the node (a recursion folded onto it) charges nothing: the
 * growth stays the node's until it is left. */
static inline void cb_paths_call(call_entry *e, JCC *jcc, Bool faked)
{
   exec_state *es = cb_cur.es;
   path_node *cur = es->path_cur;
   const cb_paths_memo *m = cb_paths_memo_of(jcc);
   e->path_node = cur;
   if (UNLIKELY(m->from != cur || faked || !cur || !cur->fn)) {
      cb_paths_call_slow(e, jcc, faked);
      return;
   }
   if (m->to != cur) cb_paths_move(es, cur, m->to);
}

/* A frame is popped: back to the node it remembers (nothing to do when
 * the call stayed on the node, or was a skipped function's). */
static inline void cb_paths_return(call_entry *e)
{
   exec_state *es = cb_cur.es;
   path_node *back = e->path_node, *cur = es->path_cur;
   if (!back) return;
   if (UNLIKELY(!cur || !cur->fn)) {
      cb_paths_return_slow(e);
      return;
   }
   e->path_node = NULL;
   if (back != cur) cb_paths_move(es, cur, back);
}

#endif
