/*
** test_backdate.c -- native unit tests of backdate/ (the back-dating tree).
**
**   gcc -O2 -Wall -Wextra -I. -o test_backdate tests/unit/test_backdate.c \
**       backdate/backdate.c tests/unit/port_native.c
**   ./test_backdate [--quick] [--bench]
**
** Groups:
**   hand      small cases whose expected values are derived in comments;
**   deep      a 200 000-deep recursion (no C recursion inside the tree);
**   oracle-*  random call/return/load/evict/settle/thread/signal sequences
**             compared with a brute force that stores the whole call chain
**             with every line and adds each eviction to every arc on it;
**   bench     (--bench) raw speed of calls, returns and line traffic.
** Prints "PASS <group>" or "FAIL <group>: detail"; exit 0 only if all pass.
**
** Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
*/
#include "backdate/backdate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int g_failed;          /* failures in the current group */
static int g_groups_failed;

#define CHECK(cond, ...)                                              \
    do {                                                              \
      if (!(cond) && g_failed++ < 5) {                              \
         printf("  %s:%d: ", __FILE__, __LINE__);                  \
         printf(__VA_ARGS__);                                      \
         printf("\n");                                             \
      }                                                             \
   } while (0)

static void group_end(const char *name)
{
   if (g_failed) {
      printf("FAIL %s: %d check(s) failed\n", name, g_failed);
      g_groups_failed++;
   } else {
      printf("PASS %s\n", name);
   }
   g_failed = 0;
}

static double now_sec(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ------------------------------------------------------------------------
** Test arcs: the tree only sees their addresses; delivery adds to `got`.
*/
#define MAX_ARCS 64

typedef struct {
   uint64_t got[BD_MAX_EVENTS];     /* sum of all deliveries */
   uint64_t want[BD_MAX_EVENTS];    /* brute-force expectation */
   uint64_t deliveries;
} test_arc;

typedef struct {
   test_arc arc[MAX_ARCS];
   int      n;                      /* events */
   int      bad_arc;                /* deliveries to unknown arcs */
} world;

static void deliver(void *ctx, void *arc, const uint64_t *costs, int n)
{
   world *w = ctx;
   test_arc *a = arc;
   int i;
   if (a < w->arc || a >= w->arc + MAX_ARCS || n != w->n) {
      w->bad_arc++;
      return;
   }
   for (i = 0; i < n; i++) a->got[i] += costs[i];
   a->deliveries++;
}

static void world_init(world *w, int n)
{
   memset(w, 0, sizeof *w);
   w->n = n;
}

static int got_is(const world *w, int a, uint64_t c0, uint64_t c1)
{
   return w->arc[a].got[0] == c0 && w->arc[a].got[1] == c1;
}

static uint64_t nodes_now(const bd_forest *f)
{
   bd_stats s;
   bd_get_stats(f, &s);
   return s.nodes_now;
}

static uint64_t trees_now(const bd_forest *f)
{
   bd_stats s;
   bd_get_stats(f, &s);
   return s.trees;
}

/* ------------------------------------------------------------------------
** 1. Hand-derived cases (2 events: think AcCost1, SpLoss1).
*/
enum { A_MAIN, A_F, A_FF, A_G, A_X, A_Y };

static void hand_callee_line(void)
{
   world w;
   bd_forest *f;
   bd_tree *t;
   bd_node *line;
   uint64_t c[2] = { 3, 5 }, root[2];

   world_init(&w, 2);
   f = bd_forest_new(2, deliver, &w);
   t = bd_tree_new(f);
   bd_call(t, &w.arc[A_MAIN]);            /* root -> main             */
   bd_call(t, &w.arc[A_F]);               /* main -> f                */
   line = bd_active(t);                   /* line loaded in f         */
   bd_ref(line);
   bd_return(t, 1);                       /* f node kept: 1 reference */
   CHECK(nodes_now(f) == 3, "root, main, f alive: %llu",
         (unsigned long long)nodes_now(f));
   bd_evict(line, c);
   /* f pruned: main->f gets {3,5}; main is active so root->main waits. */
   CHECK(got_is(&w, A_F, 3, 5), "main->f after evict");
   CHECK(got_is(&w, A_MAIN, 0, 0), "root->main too early");
   bd_return(t, 1);                       /* main pruned: {3,5}        */
   CHECK(got_is(&w, A_MAIN, 3, 5), "root->main after return");
   CHECK(nodes_now(f) == 1, "only the root left");
   bd_tree_close(t);                      /* root freed, total {3,5}   */
   bd_forest_root_total(f, root);
   CHECK(root[0] == 3 && root[1] == 5, "root total");
   CHECK(nodes_now(f) == 0 && trees_now(f) == 0, "closed tree freed");
   CHECK(bd_check(f) == 0, "check");
   CHECK(w.bad_arc == 0, "bad delivery");
   bd_forest_free(f);
}

static void hand_recursion_and_multireturn(void)
{
   world w;
   bd_forest *f;
   bd_tree *t;
   bd_node *line;
   uint64_t c[2] = { 7, 1 };

   world_init(&w, 2);
   f = bd_forest_new(2, deliver, &w);
   t = bd_tree_new(f);
   bd_call(t, &w.arc[A_MAIN]);            /* main                      */
   bd_call(t, &w.arc[A_F]);               /* main -> f                 */
   bd_call(t, &w.arc[A_FF]);              /* f -> f                    */
   bd_call(t, &w.arc[A_FF]);              /* f -> f again (new node)   */
   CHECK(bd_tree_depth(t) == 4, "depth 4");
   CHECK(nodes_now(f) == 1, "calls build no node before a line load");
   line = bd_active(t);
   CHECK(nodes_now(f) == 5, "5 nodes on the chain");
   bd_ref(line);
   bd_return(t, 3);                       /* back in main, chain kept  */
   CHECK(bd_tree_depth(t) == 1, "depth 1");
   CHECK(nodes_now(f) == 5, "chain kept by the line");
   bd_evict(line, c);
   /* Chain at load: main, main->f, f->f, f->f.  f->f stands twice, so
   ** it receives {14,2} in two deliveries; main->f {7,1}; main still
   ** active so root->main nothing yet. */
   CHECK(got_is(&w, A_FF, 14, 2), "f->f twice");
   CHECK(w.arc[A_FF].deliveries == 2, "f->f two deliveries");
   CHECK(got_is(&w, A_F, 7, 1), "main->f once");
   CHECK(got_is(&w, A_MAIN, 0, 0), "main not yet");
   CHECK(nodes_now(f) == 2, "root and main");

   /* Multi-level return without lines prunes everything on the way. */
   bd_call(t, &w.arc[A_G]);
   bd_call(t, &w.arc[A_X]);
   bd_call(t, &w.arc[A_Y]);
   CHECK(nodes_now(f) == 2, "root main (g x y not built: no load)");
   bd_return(t, 4);                       /* y, x, g, main all pruned  */
   CHECK(nodes_now(f) == 1, "root only after 4-level return");
   CHECK(got_is(&w, A_MAIN, 7, 1), "main once after return");
   CHECK(got_is(&w, A_G, 0, 0), "no cost on g");
   CHECK(bd_check(f) == 1, "check");
   bd_finish(f);
   CHECK(nodes_now(f) == 0 && trees_now(f) == 0, "finish empties");
   bd_forest_free(f);
}

static void hand_root_line(void)
{
   world w;
   bd_forest *f;
   bd_tree *t;
   bd_node *line;
   uint64_t c[2] = { 4, 4 }, root[2];
   int i;

   world_init(&w, 2);
   f = bd_forest_new(2, deliver, &w);
   t = bd_tree_new(f);
   line = bd_active(t);                   /* loaded in main = the root */
   bd_ref(line);
   bd_call(t, &w.arc[A_F]);
   bd_return(t, 1);
   bd_evict(line, c);                     /* no arc is on its chain    */
   bd_settle(f);
   bd_forest_root_total(f, root);
   CHECK(root[0] == 4 && root[1] == 4, "root total {4,4}");
   for (i = 0; i < MAX_ARCS; i++)
      CHECK(w.arc[i].deliveries == 0, "arc %d received something", i);
   bd_finish(f);
   bd_forest_root_total(f, root);
   CHECK(root[0] == 4 && root[1] == 4, "root counted once");
   bd_forest_free(f);
}

/* A return from an empty stack (instrumentation switched on mid-run):
** the tool fakes the call it returns from.  Lines loaded at the root
** before that belong to the faked arc. */
static void hand_adopt_root(void)
{
   world w;
   bd_forest *f;
   bd_tree *t;
   bd_node *line_f, *line_top;
   uint64_t c[2] = { 2, 7 }, d[2] = { 1, 1 }, root[2];

   world_init(&w, 2);
   f = bd_forest_new(2, deliver, &w);
   t = bd_tree_new(f);
   line_top = bd_active(t);               /* loaded by the running code */
   bd_ref(line_top);
   bd_call(t, &w.arc[A_F]);               /* it calls f                 */
   line_f = bd_active(t);
   bd_ref(line_f);
   bd_return(t, 1);
   bd_adopt_root(t, &w.arc[A_G]);         /* it returns: faked g arc    */
   bd_return(t, 1);                       /* ... and leaves it          */
   CHECK(bd_tree_depth(t) == 0, "back at the new root");
   bd_evict(line_f, c);
   /* f's line lands on f; g's node still holds line_top, so {2,7}
   ** waits there */
   CHECK(got_is(&w, A_F, 2, 7), "arc f got {2,7}");
   CHECK(got_is(&w, A_G, 0, 0), "faked arc g waits for its own line");
   bd_evict(line_top, d);
   /* g's node is pruned: {2,7} from f's line plus {1,1} of its own */
   CHECK(got_is(&w, A_G, 3, 8), "faked arc g got {3,8}");
   CHECK(got_is(&w, A_F, 2, 7), "arc f unchanged");
   bd_finish(f);
   bd_forest_root_total(f, root);
   CHECK(root[0] == 3 && root[1] == 8, "root total {3,8}");
   CHECK(nodes_now(f) == 0, "all pruned");
   bd_forest_free(f);
}

/* Tags (--paths): a node's tag is made from its parent's and its arc
** when the node is built.  The test's tag of a child is the parent's tag
** times 10 plus the arc's index + 1 (a decimal path of arcs), the root's
** the value set: so every line's node tells the chain it was loaded on,
** also under a root made later by bd_adopt_root. */
static void *digit_tag(void *ctx, void *parent_tag, void *arc)
{
   world *w = ctx;
   uintptr_t digit = (uintptr_t)((test_arc *)arc - w->arc) + 1;
   return (void *)((uintptr_t)parent_tag * 10 + digit);
}

/* Self cost per tag from the tag deliveries: what leaves a node counts
** for its tag and no more for its parent's (event 0 only). */
#define MAX_TAGS 8
static struct { uintptr_t tag; int64_t self; } tag_self[MAX_TAGS];

static int64_t *self_of(uintptr_t tag)
{
   int i;
   for (i = 0; i < MAX_TAGS && tag_self[i].tag && tag_self[i].tag != tag; i++) {}
   if (i == MAX_TAGS) { CHECK(0, "more than %d tags", MAX_TAGS); return &tag_self[0].self; }
   tag_self[i].tag = tag;
   return &tag_self[i].self;
}

static void deliver_tag(void *ctx, void *tag, void *parent_tag, const uint64_t *costs, int n)
{
   (void)ctx; (void)n;
   *self_of((uintptr_t)tag) += (int64_t)costs[0];
   if (parent_tag) *self_of((uintptr_t)parent_tag) -= (int64_t)costs[0];
}

static void hand_tags(void)
{
   world w;
   bd_forest *f;
   bd_tree *t;
   bd_node *at_root, *at_f, *at_ff, *at_g;
   uint64_t c1[2] = { 1, 0 }, c10[2] = { 10, 0 }, c100[2] = { 100, 0 },
            c1000[2] = { 1000, 0 };
   uintptr_t f_tag = 9 * 10 + A_F + 1, ff_tag = f_tag * 10 + A_FF + 1,
             g_tag = 9 * 10 + A_G + 1;

   world_init(&w, 2);
   memset(tag_self, 0, sizeof tag_self);
   f = bd_forest_new(2, deliver, &w);
   bd_forest_tags(f, digit_tag, deliver_tag, &w);
   t = bd_tree_new(f);
   bd_set_root_tag(t, (void *)9);
   at_root = bd_active(t);
   bd_ref(at_root);
   bd_call(t, &w.arc[A_F]);               /* two calls, one line: the   */
   bd_call(t, &w.arc[A_FF]);              /* lazy chain builds both     */
   at_ff = bd_active(t);
   bd_ref(at_ff);
   bd_return(t, 1);
   at_f = bd_active(t);
   bd_ref(at_f);
   bd_return(t, 1);
   bd_call(t, &w.arc[A_G]);
   at_g = bd_active(t);
   bd_ref(at_g);
   bd_return(t, 1);
   CHECK((uintptr_t)bd_node_tag(at_root) == 9, "root: the tag set");
   CHECK((uintptr_t)bd_node_tag(at_f) == f_tag, "f under the root");
   CHECK((uintptr_t)bd_node_tag(at_ff) == ff_tag, "ff under f");
   CHECK((uintptr_t)bd_node_tag(at_g) == g_tag, "g under the root");
   bd_adopt_root(t, &w.arc[A_X]);         /* the root was called after all */
   CHECK(bd_node_tag(t->root) == 0, "a new root's tag is unset");
   bd_set_root_tag(t, (void *)7);
   CHECK((uintptr_t)bd_node_tag(t->root) == 7, "the new root's tag set");
   CHECK((uintptr_t)bd_node_tag(at_root) == 9, "the old root keeps its tag");
   bd_evict(at_ff, c1);
   bd_settle(f);                          /* ff's line reaches every level */
   CHECK(*self_of(ff_tag) == 1 && *self_of(f_tag) == 0 && *self_of(9) == 0,
         "after a settle: ff's tag 1, f's and the root's 0");
   bd_evict(at_f, c10);
   bd_evict(at_g, c100);
   bd_evict(at_root, c1000);
   bd_finish(f);
   CHECK(bd_check(f) == 0 && nodes_now(f) == 0, "all pruned");
   /* each tag: the lines loaded on it; the old root (9) got the root's
   ** line, the new root (7) nothing of its own */
   CHECK(*self_of(ff_tag) == 1 && *self_of(f_tag) == 10 && *self_of(g_tag) == 100
         && *self_of(9) == 1000 && *self_of(7) == 0,
         "self per tag: ff 1, f 10, g 100, old root 1000, new root 0");
   bd_forest_free(f);

   /* without tags a node has none, and its slot no pointer more */
   f = bd_forest_new(2, deliver, &w);
   t = bd_tree_new(f);
   CHECK(bd_node_tag(bd_active(t)) == 0, "no tag without bd_forest_tags");
   bd_finish(f);
   bd_forest_free(f);
}

static void hand_closed_tree(void)
{
   world w;
   bd_forest *f;
   bd_tree *t1, *t2;
   bd_node *line;
   uint64_t c[2] = { 1, 2 }, root[2];

   world_init(&w, 2);
   f = bd_forest_new(2, deliver, &w);
   t1 = bd_tree_new(f);                   /* the thread                */
   bd_call(t1, &w.arc[A_MAIN]);
   t2 = bd_tree_new(f);                   /* a signal handler          */
   bd_call(t2, &w.arc[A_X]);              /* handler root -> x         */
   line = bd_active(t2);
   bd_ref(line);
   bd_call(t2, &w.arc[A_Y]);
   bd_tree_close(t2);                     /* y pruned; x kept by line  */
   CHECK(trees_now(f) == 2, "closed tree alive while referenced");
   /* t1's main loaded no line: not built */
   CHECK(nodes_now(f) == 3, "t1 root, t2 root+x: %llu",
         (unsigned long long)nodes_now(f));
   CHECK(bd_check(f) == 3, "check");
   bd_evict(line, c);                     /* x, then t2's root, go     */
   CHECK(got_is(&w, A_X, 1, 2), "handler arc got {1,2}");
   CHECK(got_is(&w, A_MAIN, 0, 0), "thread untouched");
   CHECK(trees_now(f) == 1 && nodes_now(f) == 1, "closed tree freed");
   bd_forest_root_total(f, root);
   CHECK(root[0] == 1 && root[1] == 2, "root total {1,2}");
   bd_finish(f);
   CHECK(nodes_now(f) == 0 && trees_now(f) == 0, "finish");
   bd_forest_free(f);
}

static void hand_settle(void)
{
   world w;
   bd_forest *f;
   bd_tree *t;
   bd_node *l1, *l2;
   uint64_t c1[2] = { 5, 6 }, c2[2] = { 1, 1 }, root[2];

   world_init(&w, 2);
   f = bd_forest_new(2, deliver, &w);
   t = bd_tree_new(f);
   bd_call(t, &w.arc[A_MAIN]);
   bd_call(t, &w.arc[A_G]);
   l1 = l2 = bd_active(t);                /* two lines loaded in g     */
   bd_ref(l1);
   bd_ref(l2);
   bd_return(t, 1);
   bd_evict(l1, c1);                      /* g pending {5,6}, kept     */
   CHECK(w.arc[A_G].deliveries == 0, "nothing before the dump");
   bd_settle(f);                          /* a dump: g, main, root     */
   CHECK(got_is(&w, A_G, 5, 6), "main->g settled");
   CHECK(got_is(&w, A_MAIN, 5, 6), "root->main settled");
   bd_forest_root_total(f, root);
   CHECK(root[0] == 5 && root[1] == 6, "root settled");
   CHECK(nodes_now(f) == 3, "settle keeps nodes");
   CHECK(bd_check(f) == 3, "check after settle");
   bd_evict(l2, c2);                      /* g pruned: only {1,1} new  */
   CHECK(got_is(&w, A_G, 6, 7), "main->g exactly once");
   bd_return(t, 1);
   CHECK(got_is(&w, A_MAIN, 6, 7), "root->main exactly once");
   bd_tree_close(t);
   bd_forest_root_total(f, root);
   CHECK(root[0] == 6 && root[1] == 7, "root exactly once");
   CHECK(nodes_now(f) == 0, "all gone");
   bd_forest_free(f);
}

/* bd_finish with a line still held (say, a cache not flushed): what was
** evicted is settled, the rest arrives when the line goes. */
static void hand_finish_with_held_line(void)
{
   world w;
   bd_forest *f;
   bd_tree *t;
   bd_node *l1, *l2;
   uint64_t c1[2] = { 2, 0 }, c2[2] = { 0, 9 };

   world_init(&w, 2);
   f = bd_forest_new(2, deliver, &w);
   t = bd_tree_new(f);
   bd_call(t, &w.arc[A_F]);
   l1 = l2 = bd_active(t);
   bd_ref(l1);
   bd_ref(l2);
   bd_evict(l1, c1);
   bd_finish(f);                          /* closes t; f kept by l2    */
   CHECK(got_is(&w, A_F, 2, 0), "evicted part settled");
   CHECK(nodes_now(f) == 2 && trees_now(f) == 1, "held chain stays");
   bd_evict(l2, c2);
   CHECK(got_is(&w, A_F, 2, 9), "rest on eviction");
   CHECK(nodes_now(f) == 0 && trees_now(f) == 0, "then all gone");
   bd_forest_free(f);
}

/* The live view: main -> f -> g active; a line loaded in f's earlier
** callee x (returned, its node kept by a second line) and lines in g and
** in main have left the cache.  Each level shows its whole subtree. */
static void hand_chain_known(void)
{
   world w;
   bd_forest *f;
   bd_tree *t;
   bd_node *in_x, *in_x2, *in_g, *in_main;
   uint64_t cx[2] = { 1, 2 }, cg[2] = { 10, 20 }, cm[2] = { 100, 200 };
   uint64_t known[4 * 2];
   void *arcs[4];
   int n;

   world_init(&w, 2);
   f = bd_forest_new(2, deliver, &w);
   t = bd_tree_new(f);
   bd_call(t, &w.arc[A_MAIN]);
   in_main = bd_active(t);
   bd_ref(in_main);
   bd_call(t, &w.arc[A_F]);
   bd_call(t, &w.arc[A_X]);
   in_x = in_x2 = bd_active(t);
   bd_ref(in_x);
   bd_ref(in_x2);
   bd_return(t, 1);                       /* x node kept by in_x2      */
   bd_evict(in_x, cx);                    /* pending in x, off-chain   */
   bd_call(t, &w.arc[A_G]);
   in_g = bd_active(t);
   bd_ref(in_g);
   bd_evict(in_g, cg);
   bd_evict(in_main, cm);
   n = bd_chain_known(t, arcs, known, 4);
   CHECK(n == 4, "levels %d", n);
   CHECK(arcs[0] == NULL && arcs[1] == &w.arc[A_MAIN] && arcs[2] == &w.arc[A_F]
         && arcs[3] == &w.arc[A_G], "arcs root, main, f, g");
   CHECK(known[6] == 10 && known[7] == 20, "g: its line");
   CHECK(known[4] == 11 && known[5] == 22, "f: g's and x's");
   CHECK(known[2] == 111 && known[3] == 222, "main: everything");
   CHECK(known[0] == 111 && known[1] == 222, "root: everything");
   CHECK(w.arc[A_G].deliveries == 0 && w.arc[A_F].deliveries == 0,
         "the view delivers nothing");
   n = bd_chain_known(t, arcs, known, 2);  /* capped: root and main   */
   CHECK(n == 2 && known[2] == 111 && known[3] == 222, "capped view");
   bd_settle(f);
   n = bd_chain_known(t, arcs, known, 4);
   CHECK(n == 4 && known[0] == 0 && known[2] == 0 && known[4] == 0
         && known[6] == 0, "nothing pending after a settle");
   CHECK(got_is(&w, A_F, 11, 22), "the settle delivered what was shown");
   bd_evict(in_x2, NULL);
   bd_return(t, 3);
   bd_tree_close(t);                      /* t must not be used now    */
   CHECK(w.bad_arc == 0, "bad delivery");
   bd_forest_free(f);
}

/* FEW KIDS: main's children are found in its kid[] while there are at
** most two and in the hash from the third on, through a settle, and
** again in kid[] once all have gone.  Each revisit must find the node
** its line holds (a lost child would be built twice), and bd_check
** checks the invariants of both forms at every step. */
/* Calls arc from the active node and returns: the callee's node, given a
** reference first when load (a line loaded there keeps it). */
static bd_node *held_child(bd_tree *t, int arc, world *w, int load)
{
   bd_node *nd;
   bd_call(t, &w->arc[arc]);
   nd = bd_active(t);
   if (load) bd_ref(nd);
   bd_return(t, 1);
   return nd;
}

static void hand_few_kids(void)
{
   static const int kids[] = { A_F, A_G, A_X, A_Y };
   enum { N = sizeof kids / sizeof kids[0] };
   world w;
   bd_forest *f;
   bd_tree *t;
   bd_node *line[N];
   uint64_t c[2] = { 7, 1 };
   int i, j, round;

   world_init(&w, 2);
   f = bd_forest_new(2, deliver, &w);
   t = bd_tree_new(f);
   bd_call(t, &w.arc[A_MAIN]);
   for (round = 0; round < 2; round++) {
      for (i = 0; i < N; i++) {          /* one more child each time */
         line[i] = held_child(t, kids[i], &w, 1);
         for (j = 0; j <= i; j++)
            CHECK(held_child(t, kids[j], &w, 0) == line[j],
                  "round %d: child %d of %d found", round, j, i + 1);
         CHECK(bd_check(f) == (uint64_t)i + 3, "round %d: %d children",
               round, i + 1);
         if (i == 2) bd_settle(f);
      }
      for (i = 0; i < N; i++) {          /* and fewer, down to none */
         bd_evict(line[i], c);
         for (j = i + 1; j < N; j++)
            CHECK(held_child(t, kids[j], &w, 0) == line[j],
                  "round %d: child %d after %d left", round, j, i + 1);
         CHECK(bd_check(f) == (uint64_t)(N - i - 1) + 2,
               "round %d: %d left", round, i + 1);
      }
   }
   for (i = 0; i < N; i++)
      CHECK(got_is(&w, kids[i], 14, 2), "arc %d delivered twice", i);
   bd_finish(f);
   CHECK(w.bad_arc == 0, "deliveries to unknown arcs");
   bd_forest_free(f);
}

static void test_hand(void)
{
   hand_few_kids();
   hand_chain_known();
   hand_callee_line();
   hand_recursion_and_multireturn();
   hand_root_line();
   hand_adopt_root();
   hand_tags();
   hand_closed_tree();
   hand_settle();
   hand_finish_with_held_line();
   group_end("hand");
}

/* ------------------------------------------------------------------------
** Deep recursion: root -> main -> f -> f -> ... (D levels of f->f), a line
** every STEP levels.  A line at depth k*STEP has f->f k*STEP times on its
** chain, so f->f receives sum_k k*STEP = STEP * K(K+1)/2 per unit cost.
*/
static void test_deep(void)
{
   enum { D = 200000, STEP = 1000, K = D / STEP };
   static bd_node *lines[K];
   world w;
   bd_forest *f;
   bd_tree *t;
   uint64_t one = 1, root;
   uint64_t want = (uint64_t)STEP * K * (K + 1) / 2;
   int i, k = 0;

   world_init(&w, 1);
   f = bd_forest_new(1, deliver, &w);
   t = bd_tree_new(f);
   bd_call(t, &w.arc[A_MAIN]);
   for (i = 1; i <= D; i++) {
      bd_call(t, &w.arc[A_FF]);
      if (i % STEP == 0) {
         lines[k] = bd_active(t);
         bd_ref(lines[k++]);
      }
   }
   for (i = 0; i < K; i += 2) bd_evict(lines[i], &one);
   bd_settle(f);                          /* deep settle, no recursion */
   CHECK(bd_check(f) == (uint64_t)D + 2, "deep check");
   bd_return(t, D);                       /* one unwind of D frames    */
   for (i = 1; i < K; i += 2) bd_evict(lines[i], &one);
   CHECK(w.arc[A_FF].got[0] == want, "f->f got %llu want %llu",
         (unsigned long long)w.arc[A_FF].got[0], (unsigned long long)want);
   bd_finish(f);
   CHECK(w.arc[A_MAIN].got[0] == K, "main got %llu",
         (unsigned long long)w.arc[A_MAIN].got[0]);
   bd_forest_root_total(f, &root);
   CHECK(root == K, "root total");
   CHECK(nodes_now(f) == 0, "all pruned");
   bd_forest_free(f);
   group_end("deep");
}

/* ------------------------------------------------------------------------
** 2. The brute-force oracle.
*/
#define MAX_SLOTS  1024
#define MAX_DEPTH  64
#define MAX_OPEN   6

typedef struct {           /* an open tree, as the reference sees it */
   bd_tree *t;
   int      id;
   int      depth;
   int      built;        /* chain length whose nodes exist: calls build
                             their nodes lazily, at the next line load  */
   int      chain[MAX_DEPTH];
} ref_tree;

typedef struct {           /* a cache slot: the line and its whole chain */
   int      live;
   bd_node *node;
   int      tree_id;
   int      len;
   int      chain[MAX_DEPTH];
} ref_line;

typedef struct {
   const char *name;
   uint64_t seed;
   int      n_events;
   int      n_arcs;
   int      n_slots;
   long     ops;
} oracle_cfg;

typedef struct {
   const oracle_cfg *cfg;
   world     w;
   bd_forest *f;
   ref_tree  open[MAX_OPEN];
   int       n_open, cur, next_id;
   ref_line  slot[MAX_SLOTS];
   uint64_t  root_want[BD_MAX_EVENTS];
   uint64_t  rng;
   long      settles, checks, closes, max_nodes;
} oracle;

static uint64_t rnd(oracle *o)
{
   uint64_t x = o->rng;         /* xorshift64* */
   x ^= x >> 12;
   x ^= x << 25;
   x ^= x >> 27;
   o->rng = x;
   return x * 0x2545F4914F6CDD1DULL;
}

static int rnd_below(oracle *o, int n) { return (int)(rnd(o) >> 33) % n; }

static void random_costs(oracle *o, uint64_t *c)
{
   int i;
   for (i = 0; i < o->cfg->n_events; i++)
      c[i] = rnd_below(o, 4) ? (uint64_t)rnd_below(o, 1000) : 0;
}

/* Reference eviction: every arc on the stored chain, once per place. */
static void ref_evict(oracle *o, ref_line *l, const uint64_t *c)
{
   int i, k, n = o->cfg->n_events;
   if (c) {
      for (i = 0; i < l->len; i++)
         for (k = 0; k < n; k++) o->w.arc[l->chain[i]].want[k] += c[k];
      for (k = 0; k < n; k++) o->root_want[k] += c[k];
   }
   l->live = 0;
}

static void op_evict(oracle *o, int s)
{
   uint64_t c[BD_MAX_EVENTS];
   ref_line *l = &o->slot[s];
   int drop_only = rnd_below(o, 10) == 0;
   if (!l->live) return;
   random_costs(o, c);
   if (!drop_only && o->cfg->n_events >= 2 && rnd_below(o, 3) == 0) {
      /* the pair form: only counters k and k + 1 */
      int i, k = rnd_below(o, o->cfg->n_events - 1);
      for (i = 0; i < o->cfg->n_events; i++)
         if (i != k && i != k + 1) c[i] = 0;
      bd_evict2(l->node, k, c[k], c[k + 1]);
   } else {
      bd_evict(l->node, drop_only ? NULL : c);
   }
   ref_evict(o, l, drop_only ? NULL : c);
}

static void op_load(oracle *o)
{
   int s = rnd_below(o, o->cfg->n_slots);
   ref_tree *rt = &o->open[o->cur];
   ref_line *l = &o->slot[s];
   op_evict(o, s);                       /* the slot's old line goes */
   l->live = 1;
   l->node = bd_active(rt->t);
   rt->built = rt->depth;
   bd_ref(l->node);
   l->tree_id = rt->id;
   l->len = rt->depth;
   memcpy(l->chain, rt->chain, sizeof(int) * (size_t)rt->depth);
}

static void op_return(oracle *o)
{
   ref_tree *rt = &o->open[o->cur];
   int r = rnd_below(o, 100), k;
   if (rt->depth == 0) return;
   if (r < 85)      k = 1;
   else if (r < 99) k = 1 + rnd_below(o, rt->depth < 4 ? rt->depth : 4);
   else             k = rt->depth;       /* longjmp to the bottom */
   bd_return(rt->t, k);
   rt->depth -= k;
   if (rt->built > rt->depth) rt->built = rt->depth;
}

static void op_call(oracle *o)
{
   ref_tree *rt = &o->open[o->cur];
   int a;
   if (rt->depth == MAX_DEPTH) {
      op_return(o);
      return;
   }
   a = rnd_below(o, o->cfg->n_arcs);
   bd_call(rt->t, &o->w.arc[a]);
   rt->chain[rt->depth++] = a;
}

static void op_tree_new(oracle *o)
{
   ref_tree *rt;
   if (o->n_open == MAX_OPEN) return;
   rt = &o->open[o->n_open];
   rt->t = bd_tree_new(o->f);
   rt->id = o->next_id++;
   rt->depth = rt->built = 0;
   o->cur = o->n_open++;
}

static void op_tree_close(oracle *o)
{
   if (o->n_open == 1) return;
   bd_tree_close(o->open[o->cur].t);
   o->open[o->cur] = o->open[--o->n_open];
   o->cur = rnd_below(o, o->n_open);
   o->closes++;
}

static void compare_totals(oracle *o, const char *when)
{
   uint64_t root[BD_MAX_EVENTS];
   int a, k, n = o->cfg->n_events;
   for (a = 0; a < o->cfg->n_arcs; a++)
      for (k = 0; k < n; k++)
         CHECK(o->w.arc[a].got[k] == o->w.arc[a].want[k],
               "%s: arc %d event %d got %llu want %llu", when, a, k,
               (unsigned long long)o->w.arc[a].got[k],
               (unsigned long long)o->w.arc[a].want[k]);
   bd_forest_root_total(o->f, root);
   for (k = 0; k < n; k++)
      CHECK(root[k] == o->root_want[k], "%s: root event %d", when, k);
   CHECK(o->w.bad_arc == 0, "%s: delivery to an unknown arc", when);
}

/* Exact node count (stronger than any bound: note that "lines + depth"
** is NOT a bound -- two lines loaded at depth d in different branches keep
** 2d+1 nodes).  The live nodes are exactly the distinct prefixes
** (tree, a1..aj), j >= 0, of the open trees' active chains and of the
** live lines' chains (invariant I1).  Sort the chains; the distinct
** prefixes are the sum of (length - common prefix with the previous). */
typedef struct { int len; const int *chain; int tree_id; } seq;

static int seq_cmp(const void *pa, const void *pb)
{
   const seq *a = pa, *b = pb;
   int i;
   if (a->tree_id != b->tree_id) return a->tree_id < b->tree_id ? -1 : 1;
   for (i = 0; i < a->len && i < b->len; i++)
      if (a->chain[i] != b->chain[i]) return a->chain[i] < b->chain[i] ? -1 : 1;
   return a->len - b->len;
}

static uint64_t expected_nodes(oracle *o, uint64_t *trees)
{
   static seq s[MAX_SLOTS + MAX_OPEN];
   int i, m = 0;
   uint64_t count = 0;
   for (i = 0; i < o->n_open; i++) {
      s[m].len = o->open[i].built;
      s[m].chain = o->open[i].chain;
      s[m++].tree_id = o->open[i].id;
   }
   for (i = 0; i < o->cfg->n_slots; i++) {
      if (!o->slot[i].live) continue;
      s[m].len = o->slot[i].len;
      s[m].chain = o->slot[i].chain;
      s[m++].tree_id = o->slot[i].tree_id;
   }
   qsort(s, (size_t)m, sizeof(seq), seq_cmp);
   *trees = 0;
   for (i = 0; i < m; i++) {
      int common = 0;
      if (i > 0 && s[i].tree_id == s[i - 1].tree_id) {
         while (common < s[i].len && common < s[i - 1].len
                && s[i].chain[common] == s[i - 1].chain[common])
            common++;
         count += (uint64_t)(s[i].len - common);
      } else {
         count += 1 + (uint64_t)s[i].len;   /* a new tree: its root too */
         (*trees)++;
      }
   }
   return count;
}

static void check_nodes(oracle *o)
{
   uint64_t trees, want = expected_nodes(o, &trees);
   bd_stats st;
   bd_get_stats(o->f, &st);
   CHECK(bd_check(o->f) == st.nodes_now, "bd_check count");
   CHECK(st.nodes_now == want, "nodes %llu, distinct prefixes %llu",
         (unsigned long long)st.nodes_now, (unsigned long long)want);
   CHECK(st.trees == trees, "trees %llu want %llu",
         (unsigned long long)st.trees, (unsigned long long)trees);
   if ((long)st.nodes_now > o->max_nodes) o->max_nodes = (long)st.nodes_now;
   o->checks++;
}

static void oracle_step(oracle *o)
{
   int r = rnd_below(o, 10000);
   if      (r < 3500) op_call(o);        /* drifts to depth ~20 */
   else if (r < 6000) op_return(o);
   else if (r < 8900) op_load(o);
   else if (r < 9700) op_evict(o, rnd_below(o, o->cfg->n_slots));
   else if (r < 9930) o->cur = rnd_below(o, o->n_open);   /* thread */
   else if (r < 9960) op_tree_new(o);                      /* signal */
   else if (r < 9990) op_tree_close(o);
   else {
      bd_settle(o->f);                                    /* a dump */
      o->settles++;
      compare_totals(o, "settle");
   }
}

static void oracle_finish(oracle *o)
{
   bd_stats st;
   int s;
   for (s = 0; s < o->cfg->n_slots; s++) op_evict(o, s);
   bd_finish(o->f);
   compare_totals(o, "finish");
   bd_get_stats(o->f, &st);
   CHECK(st.nodes_now == 0, "nodes_now %llu after finish",
         (unsigned long long)st.nodes_now);
   CHECK(st.trees == 0, "trees %llu after finish",
         (unsigned long long)st.trees);
   CHECK(st.nodes_created == st.nodes_pruned, "created != pruned");
}

static void run_oracle(const oracle_cfg *cfg, int quick)
{
   static oracle o;
   long i, ops = quick ? cfg->ops / 20 : cfg->ops;
   double t0, dt;
   bd_stats st;
   char name[64];

   memset(&o, 0, sizeof o);
   o.cfg = cfg;
   o.rng = cfg->seed * 0x9E3779B97F4A7C15ULL + 1;
   world_init(&o.w, cfg->n_events);
   o.f = bd_forest_new(cfg->n_events, deliver, &o.w);
   op_tree_new(&o);
   t0 = now_sec();
   for (i = 0; i < ops; i++) {
      oracle_step(&o);
      if (i % 251 == 0) check_nodes(&o);
   }
   check_nodes(&o);
   bd_get_stats(o.f, &st);
   oracle_finish(&o);
   dt = now_sec() - t0;
   printf("  %s: %ld ops in %.3f s (%.2f Mops/s incl. reference and "
          "checks); %ld settles, %ld closed trees, nodes max %llu avg "
          "%.1f, created %llu\n", cfg->name, ops, dt, ops / dt / 1e6,
          o.settles, o.closes, (unsigned long long)st.nodes_max,
          st.nodes_avg, (unsigned long long)st.nodes_created);
   bd_forest_free(o.f);
   snprintf(name, sizeof name, "oracle-%s", cfg->name);
   group_end(name);
}

static void test_oracle(int quick)
{
   static const oracle_cfg cfgs[] = {
      /* name        seed  n  arcs slots ops */
      { "seed1",        1, 5,  20, 500, 200000 },
      { "seed2",        2, 1,  20, 500, 200000 },
      { "seed3",        3, 8,  20, 500, 200000 },
      { "seed4",        4, 4,  20, 500, 200000 },
      { "seed5",        5, 5,  20, 500, 200000 },
      { "few-arcs",     6, 3,   3, 500, 200000 },   /* deep recursion */
      { "few-lines",    7, 2,  20,   8, 200000 },   /* heavy pruning */
      { "many-lines",   8, 5,  40, 1024, 200000 },
   };
   size_t i;
   for (i = 0; i < sizeof cfgs / sizeof cfgs[0]; i++)
      run_oracle(&cfgs[i], quick);
}

/* ------------------------------------------------------------------------
** Benchmarks (--bench): the tree alone, no reference.
*/
static void bench(void)
{
   enum { N = 20000000 };
   world w;
   bd_forest *f;
   bd_tree *t;
   bd_node *held[64];
   uint64_t c[5] = { 1, 2, 3, 4, 5 };
   double t0, dt;
   long i;

   world_init(&w, 5);
   f = bd_forest_new(5, deliver, &w);
   t = bd_tree_new(f);
   printf("  node slot: %lu bytes with 5 events\n", bd_node_bytes(f));
   bd_call(t, &w.arc[0]);

   /* Leaf calls that load nothing: create + prune every time. */
   t0 = now_sec();
   for (i = 0; i < N; i++) {
      bd_call(t, &w.arc[1 + (i & 7)]);
      bd_return(t, 1);
   }
   dt = now_sec() - t0;
   printf("  call+return, leaf pruned each time: %.1f ns/pair\n",
          dt / N * 1e9);

   /* Callees kept alive by a line each: hint or hash lookup. */
   for (i = 0; i < 64; i++) {
      bd_call(t, &w.arc[1 + i]);
      held[i] = bd_active(t);
      bd_ref(held[i]);
      bd_return(t, 1);
   }
   t0 = now_sec();
   for (i = 0; i < N; i++) {
      bd_call(t, &w.arc[1]);
      bd_return(t, 1);
   }
   dt = now_sec() - t0;
   printf("  call+return, same live callee (hint): %.1f ns/pair\n",
          dt / N * 1e9);
   t0 = now_sec();
   for (i = 0; i < N; i++) {
      bd_call(t, &w.arc[1 + (i & 63)]);
      bd_return(t, 1);
   }
   dt = now_sec() - t0;
   printf("  call+return, 64 live callees (hash): %.1f ns/pair\n",
          dt / N * 1e9);

   /* Line traffic: a 100-line loop of ref + evict with costs. */
   t0 = now_sec();
   for (i = 0; i < N; i++) {
      bd_node *nd = held[i & 63];
      bd_ref(nd);
      bd_evict(nd, c);
   }
   dt = now_sec() - t0;
   printf("  ref+evict (5 events): %.1f ns/pair\n", dt / N * 1e9);
   for (i = 0; i < 64; i++) bd_evict(held[i], c);
   bd_finish(f);
   bd_forest_free(f);
   group_end("bench");
}

int main(int argc, char **argv)
{
   int i, quick = 0, do_bench = 0;
   for (i = 1; i < argc; i++) {
      if (!strcmp(argv[i], "--quick")) quick = 1;
      else if (!strcmp(argv[i], "--bench")) do_bench = 1;
   }
   test_hand();
   test_deep();
   test_oracle(quick);
   if (do_bench) bench();
   return g_groups_failed ? 1 : 0;
}
