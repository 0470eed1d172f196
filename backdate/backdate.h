/*
** backdate.h -- the back-dating tree of callgrind-bd.
**
** Inclusive costs for metrics that become known only long after the
** instruction they belong to ran (cache-use metrics, known at eviction).
** See backdate.c for the algorithm and README.md for a summary.
**
** Pure C: no Valgrind header, no libc.  The includer supplies three
** functions (bd_alloc, bd_free, bd_fail); the same file builds into the
** tool and into native unit tests.
**
** Copyright (C) the callgrind-bd authors.  GPL-2.0-or-later.
*/
#ifndef BACKDATE_H
#define BACKDATE_H

#include <stdint.h>

/* ---- supplied by the includer ------------------------------------------ */
void *bd_alloc(unsigned long bytes);      /* zeroed memory; never NULL     */
void  bd_free(void *p);
void  bd_fail(const char *msg) __attribute__((noreturn));

/* ---- types ------------------------------------------------------------- */
typedef struct bd_node   bd_node;     /* "this call arc under that parent" */
typedef struct bd_tree   bd_tree;     /* one execution context             */
typedef struct bd_forest bd_forest;   /* pool, hash, callback, statistics  */

#define BD_MAX_EVENTS 12   /* the tool uses up to 9 (--L2 --backdate-check) */

/* Delivery of back-dated costs to a call arc (the tool's JCC): add the
** n counters to the arc's inclusive cost.  Never called with arc NULL:
** what reaches a root is kept in the forest (bd_forest_root_total). */
typedef void (*bd_deliver_fn)(void *ctx, void *arc,
                              const uint64_t *costs, int n);

/* ---- forest ------------------------------------------------------------ */
bd_forest *bd_forest_new(int n_events, bd_deliver_fn deliver, void *ctx);
void       bd_forest_free(bd_forest *);   /* release all memory, no delivery */
int        bd_forest_events(const bd_forest *);

/* ---- tags (optional) ---------------------------------------------------- */
/* A tag is a pointer of the tool's kept in every node, made from the
** parent's tag and the node's arc when the node is built (the tool's
** calling-context node for --paths).  Call bd_forest_tags before the
** first tree: it adds a pointer to every node.  A root's tag is set by
** the tool (bd_set_root_tag), also after bd_adopt_root made a new root.
**
** Whenever a node's pending counters leave it (to its arc and parent when
** pruned or settled, to the root total from a root), deliver_tag gets
** them with the node's tag and its parent's (NULL from a root).  Adding
** them to tag and taking them from parent_tag gives each tag exactly the
** metrics evicted from lines referencing its nodes (their self cost):
** what a node passes up, its parent passes on again.  After bd_settle or
** bd_finish nothing is pending, and these self costs are complete. */
typedef void *(*bd_tag_fn)(void *ctx, void *parent_tag, void *arc);
typedef void (*bd_tag_deliver_fn)(void *ctx, void *tag, void *parent_tag,
                                  const uint64_t *costs, int n);
void  bd_forest_tags(bd_forest *, bd_tag_fn tag, bd_tag_deliver_fn deliver_tag,
                     void *ctx);
void  bd_set_root_tag(bd_tree *, void *tag);
void *bd_node_tag(const bd_node *);       /* NULL without tags            */

/* ---- trees (threads, signal-handler invocations) ----------------------- */
bd_tree *bd_tree_new(bd_forest *);        /* new context, its root active   */
/* Context ended (thread exit, handler returned).  No node is active any
** more; the tree and its nodes go away once no line references them.
** The bd_tree pointer must not be used after this call. */
void     bd_tree_close(bd_tree *);
/* Node to store in a loaded line.  Builds the nodes of calls made since
** the last line load (calls only note their arc, see backdate.c).
** Inline (backdate_inline.h). */
static inline bd_node *bd_active(bd_tree *);
int      bd_tree_depth(const bd_tree *);  /* calls between root and active  */
bd_tree *bd_node_tree(const bd_node *);   /* the tree a live node is in     */

/* ---- calls and returns ------------------------------------------------- */
void bd_call(bd_tree *, void *arc);       /* arc must not be NULL           */
void bd_return(bd_tree *, int levels);    /* past the root: bd_fail         */
/* The root was entered through arc after all (a return from an empty call
** stack): it becomes arc's node under a new root; the active node stays. */
void bd_adopt_root(bd_tree *, void *arc);

/* ---- cache lines ------------------------------------------------------- */
static inline void bd_ref(bd_node *);     /* a line now references the node */
/* The line goes: add costs (n counters, or NULL for none) to the node's
** pending counters, drop its reference, prune what became useless. */
static inline void bd_evict(bd_node *, const uint64_t *costs);
/* The same when only counters first and first + 1 are non-zero. */
static inline void bd_evict2(bd_node *, int first, uint64_t a, uint64_t b);

/* ---- dumps and exit ---------------------------------------------------- */
/* Deliver all pending counters now, keeping every node: each node's arc
** receives the sum of pending counters in its subtree, then all pending
** counters are 0.  Across all settles and later prunes each metric reaches
** each arc of its load-time chain exactly once per occurrence. */
void bd_settle(bd_forest *);
/* At exit, after the final cache flush: close every tree and prune.  If
** some line still holds a reference, its nodes stay and what is pending is
** settled, so nothing evicted so far is lost. */
void bd_finish(bd_forest *);
/* Everything that has climbed to a root (pruned or settled), per event:
** after bd_finish this is the total of every metric ever evicted. */
void bd_forest_root_total(const bd_forest *, uint64_t *out);

/* ---- live view (monitor "status") -------------------------------------- */
/* What is known so far on the active chain, without delivering anything:
** level 0 is the root, level j the node of the j-th call on the chain.
** For each level j < max (from the root down to the deepest node built)
** arcs[j] gets the node's arc (NULL for the root) and known[j*n .. j*n+n-1]
** the pending counters of its whole subtree: metrics of lines loaded under
** it that have already left the cache and are not yet delivered to its
** arc.  Returns the number of levels filled (0 for a closed tree).  Calls
** whose nodes are not built yet (nothing loaded under them) have nothing
** pending and no level.  O(live nodes of the forest x their depth). */
int bd_chain_known(const bd_tree *t, void **arcs, uint64_t *known, int max);

/* ---- statistics -------------------------------------------------------- */
/* Distinct call arcs are counted by the tool, which owns them. */
typedef struct {
   uint64_t trees;          /* live trees (open, or closed but referenced) */
   uint64_t nodes_now;      /* live nodes, roots included                  */
   uint64_t nodes_max;      /* high-water mark of nodes_now                */
   uint64_t nodes_created;
   uint64_t nodes_pruned;   /* nodes_created - nodes_pruned == nodes_now   */
   uint64_t calls;          /* bd_call invocations                         */
   double   nodes_avg;      /* mean of nodes_now sampled at each bd_call   */
} bd_stats;
void bd_get_stats(const bd_forest *, bd_stats *);
unsigned long bd_node_bytes(const bd_forest *);  /* bytes per node slot     */

/* Consistency check for tests and debug builds: walks every node, calls
** bd_fail on a broken invariant, returns the number of live nodes. */
uint64_t bd_check(const bd_forest *);

#include "backdate_inline.h"

#endif /* BACKDATE_H */
