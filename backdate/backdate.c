/*
** backdate.c -- the back-dating tree: exact inclusive costs for metrics
** that are known only long after the code they belong to ran.
**
** Copyright (C) the callgrind-bd authors.  GPL-2.0-or-later.
**
** THE PROBLEM
**
** A cache line's use metrics (how often it was touched, how many bytes were
** never used) are known when it is evicted, but they belong to the call
** chain that was running when it was loaded.  The running-counter trick
** that gives immediate metrics their inclusive costs cannot see them, and
** storing the whole chain in every line is far too slow.
**
** THE TREE
**
** Each execution context (a thread, or one signal-handler invocation) has a
** partial call tree.  A node stands for "this call arc, under this parent
** node"; the root has no arc.  One node per open tree is ACTIVE: the
** function running now.  A call finds or creates the active node's child
** for the arc and makes it active; a return makes the parent active.
** (Calls build their nodes lazily, at the next line load: LAZY CHAIN at
** bd_call.)  A
** loaded line stores the active node and holds a reference to it.  When
** the line is evicted its metrics go into the node's PENDING counters and
** the reference is dropped.
**
** PRUNING.  A node that is not active, has no children and no references
** can never receive anything again, so it is removed at once: its pending
** counters are delivered to its arc AND added to its parent's pending
** counters, and the parent is examined the same way.  Pending counters
** thus climb towards the root, and a metric loaded under the chain
** root -> a1 -> ... -> ak is delivered to a1..ak exactly once each (twice
** to an arc standing twice on the chain, as with recursion) -- the same
** inclusive cost the running counter gives an immediate metric.  What
** reaches a root is kept in the forest's root total.
**
** INVARIANTS (between API calls; bd_check verifies them)
**
**   I1. Every live node is active, or has a child, or is referenced.  So
**       the live nodes of a tree are exactly the active chain plus the
**       chains of referenced nodes -- the nodes are bounded by stack depth
**       plus (lines in the caches x their depth), usually far less.
**   I2. The ancestors of the active node all have a child, hence the
**       active chain is never pruned without an "on chain" flag: only the
**       active node itself needs the test node == tree->active.
**   I3. (parent, arc) identifies at most one live node.  A non-root node
**       whose parent has kids_hashed is in the forest hash table under
**       that key; any other is in its parent's kid[] (FEW KIDS).
**   I4. Without kids_hashed, a node's kid[0..1] hold exactly its nkids
**       (<= 2) children, the others NULL.  With it, kid[0], when not
**       NULL, is a live child (a hint) and kid[1] is NULL.
**   I5. A closed tree has no active node; when its root goes (I1) the
**       tree goes with it.
**
** CHOICES
**
** Nodes are 56 bytes plus 8 per event, carved from pool chunks and reused
** through a free list.
**
** FEW KIDS.  Most nodes have one or two children (a call path, or a
** function calling two others), and the tree is built and pruned as fast
** as lines come and go; a global hash table of the children would cost a
** host cache miss on its bucket at every node's birth and death, in a
** table of megabytes.  So a node keeps up to two children in kid[] and
** finds them there.  Its third child moves all three into a per-forest
** hash table keyed by (parent, arc) (kids_hashed), where kid[0] is only
** a hint, the child entered last (a loop calling the same function
** again), so a call costs O(1) whatever the fan-out; the table is not
** asked when the parent has no child but the hint.  A node back to no
** children leaves the hashed mode.
** Pruning walks parent pointers and bd_settle uses an explicit stack, so
** no C recursion depends on the depth of the program's recursion.
**
** bd_settle (a dump) delivers without pruning: it processes nodes leaves
** first (Kahn's order: a node is ready when all its children are done),
** delivering each node's pending to its arc and moving it to the parent.
** Borrowing nkids as the "children left" counter and kid[0] as the stack
** link, it needs no memory; both are rebuilt afterwards.  O(nodes).
*/
#include "backdate.h"

/* The data structures are in backdate_inline.h (included by backdate.h),
** so that the per-line operations can be inlined into the tool. */

#define FIRST_CHUNK_NODES  256UL
#define MAX_CHUNK_NODES    16384UL
#define FIRST_HASH_BITS    8

/* ------------------------------------------------------------------------
** Pending counters (n <= BD_MAX_EVENTS: plain loops, no libc)
*/
static void pending_add(uint64_t *dst, const uint64_t *src, int n)
{
   int i;
   for (i = 0; i < n; i++) dst[i] += src[i];
}

static int pending_nonzero(const uint64_t *p, int n)
{
   int i;
   for (i = 0; i < n; i++) if (p[i]) return 1;
   return 0;
}

static void pending_clear(uint64_t *p, int n)
{
   int i;
   for (i = 0; i < n; i++) p[i] = 0;
}

/* ------------------------------------------------------------------------
** Node pool.  Slots are never returned to bd_free before bd_forest_free:
** the peak is what the run needs, and reuse keeps the slots warm.
*/
static void pool_grow(bd_forest *f)
{
   unsigned long i, count = f->chunk_nodes;
   bd_chunk *c = bd_alloc(sizeof(bd_chunk) + count * f->node_size);
   char *slots = (char *)(c + 1);

   c->next = f->chunks;
   c->nodes = count;
   f->chunks = c;
   /* Push in reverse so slots are handed out in address order. */
   for (i = count; i-- > 0; ) {
      bd_node *nd = (bd_node *)(slots + i * f->node_size);
      nd->hnext = f->free_nodes;
      f->free_nodes = nd;
   }
   if (f->chunk_nodes < MAX_CHUNK_NODES) f->chunk_nodes *= 2;
}

static bd_node *node_alloc(bd_forest *f, bd_tree *t, bd_node *parent,
                           void *arc)
{
   bd_node *nd;
   if (!f->free_nodes) pool_grow(f);
   nd = f->free_nodes;
   f->free_nodes = nd->hnext;

   nd->parent = parent;
   nd->arc    = arc;
   nd->tree   = t;
   nd->hnext  = 0;
   nd->kid[0] = 0;
   nd->kid[1] = 0;
   nd->refs   = 0;
   nd->nkids  = 0;
   nd->kids_hashed = 0;
   pending_clear(nd->pending, f->n);

   f->nodes_created++;
   if (++f->nodes_now > f->nodes_max) f->nodes_max = f->nodes_now;
   return nd;
}

static void node_release(bd_forest *f, bd_node *nd)
{
   nd->tree = 0;          /* marks the slot free: bd_ref/bd_evict fail  */
   nd->refs = 0;
   nd->hnext = f->free_nodes;
   f->free_nodes = nd;
   f->nodes_pruned++;
   f->nodes_now--;
}

/* ------------------------------------------------------------------------
** Hash table of non-root nodes keyed by (parent, arc).  Multiplicative
** hashing: the top bits of the product mix every bit of both pointers.
*/
static unsigned long hash_slot(const bd_forest *f, const bd_node *parent,
                               const void *arc)
{
   uint64_t x = (uint64_t)(uintptr_t)parent
            ^ ((uint64_t)(uintptr_t)arc * 0x9E3779B97F4A7C15ULL);
   x *= 0xC2B2AE3D27D4EB4FULL;
   return (unsigned long)(x >> (64 - f->hash_bits));
}

static bd_node *hash_find(const bd_forest *f, const bd_node *parent,
                          const void *arc)
{
   bd_node *nd = f->bucket[hash_slot(f, parent, arc)];
   while (nd && (nd->parent != parent || nd->arc != arc)) nd = nd->hnext;
   return nd;
}

static void hash_link(bd_forest *f, bd_node *nd)
{
   unsigned long s = hash_slot(f, nd->parent, nd->arc);
   nd->hnext = f->bucket[s];
   f->bucket[s] = nd;
}

/* Double the buckets when the load reaches 1, so chains stay short. */
static void hash_grow(bd_forest *f)
{
   bd_node **old = f->bucket;
   unsigned long i, n_old = 1UL << f->hash_bits;

   f->hash_bits++;
   f->bucket = bd_alloc((1UL << f->hash_bits) * sizeof(bd_node *));
   for (i = 0; i < n_old; i++) {
      bd_node *nd = old[i];
      while (nd) {
         bd_node *next = nd->hnext;
         hash_link(f, nd);
         nd = next;
      }
   }
   bd_free(old);
}

static void hash_insert(bd_forest *f, bd_node *nd)
{
   if (f->hash_count >= (1UL << f->hash_bits)) hash_grow(f);
   hash_link(f, nd);
   f->hash_count++;
}

static void hash_remove(bd_forest *f, bd_node *nd)
{
   bd_node **pp = &f->bucket[hash_slot(f, nd->parent, nd->arc)];
   while (*pp != nd) {
      if (!*pp) bd_fail("backdate: node missing from hash table");
      pp = &(*pp)->hnext;
   }
   *pp = nd->hnext;
   f->hash_count--;
}

/* ------------------------------------------------------------------------
** Children (FEW KIDS)
*/

/* Makes child (of p) the one a lookup tries first: kid[0]. */
static void kid_hint(bd_node *p, bd_node *child)
{
   if (p->kids_hashed) {
      p->kid[0] = child;
   } else if (p->kid[0] != child) {
      p->kid[1] = p->kid[0];
      p->kid[0] = child;
   }
}

/* A new child of p, not yet counted. */
static void kid_link(bd_forest *f, bd_node *p, bd_node *child)
{
   if (!p->kids_hashed && p->nkids == 2) {      /* a third: to the hash */
      hash_insert(f, p->kid[0]);
      hash_insert(f, p->kid[1]);
      p->kid[1] = 0;
      p->kids_hashed = 1;
   }
   if (p->kids_hashed) hash_insert(f, child);
   kid_hint(p, child);          /* (with kid[0] empty, so is kid[1]) */
   p->nkids++;
}

/* child of p leaves. */
static void kid_unlink(bd_forest *f, bd_node *p, bd_node *child)
{
   if (p->kids_hashed) {
      hash_remove(f, child);
      if (p->kid[0] == child) p->kid[0] = 0;
   } else if (p->kid[0] == child) {
      p->kid[0] = p->kid[1];
      p->kid[1] = 0;
   } else {
      p->kid[1] = 0;
   }
   if (--p->nkids == 0) p->kids_hashed = 0;
}

/* ------------------------------------------------------------------------
** Trees
*/
static void tree_link(bd_forest *f, bd_tree *t)
{
   t->prev = 0;
   t->next = f->trees;
   if (f->trees) f->trees->prev = t;
   f->trees = t;
   f->n_trees++;
}

static void tree_unlink(bd_forest *f, bd_tree *t)
{
   if (t->prev) t->prev->next = t->next;
   else         f->trees = t->next;
   if (t->next) t->next->prev = t->prev;
   f->n_trees--;
}

/* The root of a closed tree lost its last child and reference: keep what
** climbed to it, then free root and tree (I5). */
static void **tag_slot(const bd_node *nd);

/* nd's pending counters leave it (bd_forest_tags). */
static void tag_deliver(bd_forest *f, const bd_node *nd)
{
   if (f->deliver_tag)
      f->deliver_tag(f->tag_ctx, *tag_slot(nd), nd->parent ? *tag_slot(nd->parent) : 0,
                     nd->pending, f->n);
}

static void root_release(bd_forest *f, bd_node *root)
{
   bd_tree *t = root->tree;
   if (pending_nonzero(root->pending, f->n)) tag_deliver(f, root);
   pending_add(f->root_total, root->pending, f->n);
   node_release(f, root);
   tree_unlink(f, t);
   bd_free(t);
}

/* ------------------------------------------------------------------------
** Pruning
*/
static int prunable(const bd_node *nd)
{
   return nd->refs == 0 && nd->nkids == 0 && nd != nd->tree->active;
}

/* Remove a non-root leaf: deliver its pending to its arc and hand the
** same counters to the parent, which will deliver them to its own arc. */
static void node_prune(bd_forest *f, bd_node *nd)
{
   bd_node *p = nd->parent;
   if (pending_nonzero(nd->pending, f->n)) {
      f->deliver(f->ctx, nd->arc, nd->pending, f->n);
      tag_deliver(f, nd);
      pending_add(p->pending, nd->pending, f->n);
   }
   kid_unlink(f, p, nd);
   node_release(f, nd);
}

/* Prune nd and then its ancestors for as long as they qualify (I1).
** Iterative: recursion in the program must not recurse here. */
void bd__prune_upward(bd_forest *f, bd_node *nd)
{
   while (prunable(nd)) {
      bd_node *p = nd->parent;
      if (!p) {
         root_release(f, nd);
         return;
      }
      node_prune(f, nd);
      nd = p;
   }
}

/* ------------------------------------------------------------------------
** Forest
*/
bd_forest *bd_forest_new(int n_events, bd_deliver_fn deliver, void *ctx)
{
   bd_forest *f;
   if (n_events < 0 || n_events > BD_MAX_EVENTS)
      bd_fail("bd_forest_new: event count out of range");
   if (!deliver) bd_fail("bd_forest_new: no delivery callback");

   f = bd_alloc(sizeof(bd_forest));
   f->n = n_events;
   f->node_size = sizeof(bd_node) + (unsigned long)n_events * 8;
   f->deliver = deliver;
   f->ctx = ctx;
   f->chunk_nodes = FIRST_CHUNK_NODES;
   f->hash_bits = FIRST_HASH_BITS;
   f->bucket = bd_alloc((1UL << f->hash_bits) * sizeof(bd_node *));
   return f;
}

void bd_forest_free(bd_forest *f)
{
   while (f->trees) {
      bd_tree *t = f->trees;
      f->trees = t->next;
      if (t->pend) bd_free(t->pend);
      bd_free(t);
   }
   while (f->chunks) {
      bd_chunk *c = f->chunks;
      f->chunks = c->next;
      bd_free(c);
   }
   bd_free(f->bucket);
   bd_free(f);
}

int bd_forest_events(const bd_forest *f) { return f->n; }

/* The tag lives after the node's n counters, so a forest without tags
** pays nothing; a node's slot grows by one pointer with them. */
static void **tag_slot(const bd_node *nd)
{
   return (void **)&((bd_node *)nd)->pending[nd->tree->forest->n];
}

void bd_forest_tags(bd_forest *f, bd_tag_fn tag, bd_tag_deliver_fn deliver_tag, void *ctx)
{
   if (f->trees || f->chunks) bd_fail("bd_forest_tags: the forest is in use");
   if (!tag) bd_fail("bd_forest_tags: no tag function");
   f->tag = tag;
   f->deliver_tag = deliver_tag;
   f->tag_ctx = ctx;
   f->node_size = sizeof(bd_node) + (unsigned long)f->n * 8 + sizeof(void *);
}

void bd_set_root_tag(bd_tree *t, void *tag)
{
   if (t->forest->tag) *tag_slot(t->root) = tag;
}

void *bd_node_tag(const bd_node *nd)
{
   if (!nd || !nd->tree) bd_fail("bd_node_tag: not a live node");
   return nd->tree->forest->tag ? *tag_slot(nd) : 0;
}

unsigned long bd_node_bytes(const bd_forest *f) { return f->node_size; }

void bd_forest_root_total(const bd_forest *f, uint64_t *out)
{
   int i;
   for (i = 0; i < f->n; i++) out[i] = f->root_total[i];
}

/* ------------------------------------------------------------------------
** Trees: open, close, calls, returns
*/
bd_tree *bd_tree_new(bd_forest *f)
{
   bd_tree *t = bd_alloc(sizeof(bd_tree));
   t->forest = f;
   t->root = node_alloc(f, t, 0, 0);
   if (f->tag) *tag_slot(t->root) = 0;
   t->active = t->root;
   t->depth = 0;
   tree_link(f, t);
   return t;
}

void bd_tree_close(bd_tree *t)
{
   bd_node *was = t->active;
   if (!was) bd_fail("bd_tree_close: tree already closed");
   t->active = 0;
   t->depth = 0;
   t->npend = 0;
   if (t->pend) bd_free(t->pend);
   t->pend = 0;
   t->pend_size = 0;
   bd__prune_upward(t->forest, was);        /* may free t */
}


int bd_tree_depth(const bd_tree *t) { return t->depth; }

bd_tree *bd_node_tree(const bd_node *nd) { return nd->tree; }

static bd_node *child_create(bd_forest *f, bd_tree *t, bd_node *parent,
                             void *arc)
{
   bd_node *nd = node_alloc(f, t, parent, arc);
   kid_link(f, parent, nd);
   if (f->tag) *tag_slot(nd) = f->tag(f->tag_ctx, *tag_slot(parent), arc);
   return nd;
}

/* parent's child for arc, or NULL: in kid[] (FEW KIDS), or the hint
** kid[0] and then the hash.  The hash is asked only when parent has a
** child the hint does not show (by I4 the hint, when set, is one of the
** nkids live children): its bucket and chain are host cache misses in a
** table of megabytes. */
static bd_node *child_find(const bd_forest *f, bd_node *parent, void *arc)
{
   bd_node *first = parent->kid[0], *second = parent->kid[1];
   if (first && first->arc == arc) return first;
   if (!parent->kids_hashed) return second && second->arc == arc ? second : 0;
   if (parent->nkids <= (first ? 1u : 0u)) return 0;
   return hash_find(f, parent, arc);
}

/* Build the nodes of the pending calls (LAZY CHAIN). */
void bd__materialize(bd_tree *t)
{
   bd_forest *f = t->forest;
   int i;
   for (i = 0; i < t->npend; i++) {
      bd_node *parent = t->active;
      void *arc = t->pend[i];
      bd_node *child = child_find(f, parent, arc);
      if (!child) child = child_create(f, t, parent, arc);   /* in front */
      else kid_hint(parent, child);
      t->active = child;
   }
   t->npend = 0;
}


/* LAZY CHAIN.  A call only notes its arc; the nodes are built when a line
** is loaded (bd_active).  A call that loads nothing -- most calls of small
** functions -- would create a node that its return prunes at once with
** nothing pending, so not building it changes no cost: the nodes that do
** get built are exactly the ones an eager tree would have then. */
void bd_call(bd_tree *t, void *arc)
{
   bd_forest *f = t->forest;

   if (!t->active) bd_fail("bd_call: tree is closed");
   if (!arc) bd_fail("bd_call: NULL arc");
   if (t->npend == t->pend_size) {
      int size = t->pend_size ? 2 * t->pend_size : 64, i;
      void **pend = bd_alloc((unsigned long)size * sizeof(void *));
      for (i = 0; i < t->npend; i++) pend[i] = t->pend[i];
      if (t->pend) bd_free(t->pend);
      t->pend = pend;
      t->pend_size = size;
   }
   t->pend[t->npend++] = arc;
   t->depth++;
   f->calls++;
   f->nodes_sum += f->nodes_now;
}

void bd_return(bd_tree *t, int levels)
{
   bd_forest *f = t->forest;
   if (levels < 0) bd_fail("bd_return: negative level count");
   if (!t->active) bd_fail("bd_return: tree is closed");
   while (levels > 0 && t->npend > 0) {   /* calls without nodes */
      t->npend--;
      t->depth--;
      levels--;
   }
   while (levels-- > 0) {
      bd_node *was = t->active;
      if (!was->parent) bd_fail("bd_return: return past the root");
      t->active = was->parent;
      t->depth--;
      bd__prune_upward(f, was);       /* stops at the new active node (I2) */
   }
}

/* The code running at the root turns out to have been called through arc
** (a return found an empty call stack: the tool fakes the call it returns
** from).  The root becomes that arc's node under a fresh root, so what was
** loaded so far climbs through the arc; the active node stays. */
void bd_adopt_root(bd_tree *t, void *arc)
{
   bd_forest *f = t->forest;
   bd_node *old = t->root, *root;

   if (!t->active) bd_fail("bd_adopt_root: tree is closed");
   if (!arc) bd_fail("bd_adopt_root: NULL arc");
   root = node_alloc(f, t, 0, 0);
   if (f->tag) *tag_slot(root) = 0;
   old->parent = root;
   old->arc = arc;
   kid_link(f, root, old);
   t->root = root;
   t->depth++;
}

/* ------------------------------------------------------------------------
** Cache lines
*/
/* bd_ref, bd_evict and bd_active are inline, in backdate_inline.h. */

/* ------------------------------------------------------------------------
** Visiting every live node: the pool's slots that belong to a tree (a
** free slot has none; a slot never used is zeroed).  fn must not free
** nodes.
*/
typedef void (*visit_fn)(bd_forest *f, bd_node *nd, void *arg);

static void visit_all(bd_forest *f, visit_fn fn, void *arg)
{
   const bd_chunk *c;
   unsigned long i;
   for (c = f->chunks; c; c = c->next) {
      char *slots = (char *)(c + 1);
      for (i = 0; i < c->nodes; i++) {
         bd_node *nd = (bd_node *)(slots + i * f->node_size);
         if (nd->tree) fn(f, nd, arg);
      }
   }
}

/* ------------------------------------------------------------------------
** Settle (dumps)
*/

/* Deliver a node's pending (its own plus what its finished children
** passed up) and pass it on, as pruning would, but keep the node. */
static void settle_node(bd_forest *f, bd_node *nd)
{
   if (!pending_nonzero(nd->pending, f->n)) return;
   tag_deliver(f, nd);
   if (nd->parent) {
      f->deliver(f->ctx, nd->arc, nd->pending, f->n);
      pending_add(nd->parent->pending, nd->pending, f->n);
   } else {
      pending_add(f->root_total, nd->pending, f->n);
   }
   pending_clear(nd->pending, f->n);
}

static void push_leaf(bd_forest *f, bd_node *nd, void *arg)
{
   bd_node **stack = arg;
   (void)f;
   if (nd->nkids == 0) {
      nd->kid[0] = *stack;
      *stack = nd;
   }
}

static void clear_links(bd_forest *f, bd_node *nd, void *arg)
{
   (void)f; (void)arg;
   nd->nkids = 0;
   nd->kid[0] = 0;        /* a hashed node's hint is lost (I4) */
   nd->kid[1] = 0;
}

/* nd counted, and listed in its parent's kid[] unless hashed (the hash
** was not touched). */
static void count_kid(bd_forest *f, bd_node *nd, void *arg)
{
   bd_node *p = nd->parent;
   (void)f; (void)arg;
   if (!p) return;
   if (!p->kids_hashed) p->kid[p->nkids] = nd;
   p->nkids++;
}

void bd_settle(bd_forest *f)
{
   bd_node *stack = 0;

   visit_all(f, push_leaf, &stack);
   while (stack) {
      bd_node *nd = stack, *p = nd->parent;
      stack = nd->kid[0];
      settle_node(f, nd);
      if (p && --p->nkids == 0) {      /* all children done: ready */
         p->kid[0] = stack;
         stack = p;
      }
   }
   visit_all(f, clear_links, 0);
   visit_all(f, count_kid, 0);
}

void bd_finish(bd_forest *f)
{
   bd_tree *t = f->trees;
   while (t) {
      bd_tree *next = t->next;   /* closing t frees at most t itself */
      if (t->active) bd_tree_close(t);
      t = next;
   }
   if (f->nodes_now) bd_settle(f);     /* lines still held: lose nothing */
}

/* ------------------------------------------------------------------------
** Live view: pending counters per level of the active chain
*/
/* The chain's nodes by address (open addressing, at most half full), so
** that finding a node's level costs O(1) however deep the chain is. */
typedef struct {
   const bd_node **node;
   int            *level;
   unsigned long   mask;
} chain_index;

static unsigned long chain_slot(const chain_index *ci, const bd_node *nd)
{
   unsigned long h = (unsigned long)(uintptr_t)nd;
   h = (h >> 4) * 0x9E3779B97F4A7C15ULL;
   return (h >> 20) & ci->mask;
}

static void chain_index_init(chain_index *ci, const bd_node *active, int levels)
{
   unsigned long size = 4, h;
   const bd_node *nd;
   int depth = 0, j;
   while (size < 2UL * (unsigned long)levels) size <<= 1;
   ci->mask = size - 1;
   ci->node = bd_alloc(sizeof(bd_node *) * size);
   ci->level = bd_alloc(sizeof(int) * size);
   for (nd = active; nd; nd = nd->parent) depth++;
   for (nd = active; nd; nd = nd->parent) {
      j = --depth;
      if (j >= levels) continue;         /* below the levels shown */
      for (h = chain_slot(ci, nd); ci->node[h]; h = (h + 1) & ci->mask) ;
      ci->node[h] = nd;
      ci->level[h] = j;
   }
}

static int chain_level(const chain_index *ci, const bd_node *nd)
{
   unsigned long h;
   for (h = chain_slot(ci, nd); ci->node[h]; h = (h + 1) & ci->mask)
      if (ci->node[h] == nd) return ci->level[h];
   return -1;
}

/* Adds a node's pending counters to the level of its nearest ancestor (or
** itself) on the chain: the deepest chain node whose subtree holds it. */
static void add_to_chain(const bd_forest *f, const chain_index *ci,
                         const bd_node *nd, uint64_t *known)
{
   const bd_node *p = nd;
   int j = -1;
   if (!pending_nonzero(nd->pending, f->n)) return;
   while (p && (j = chain_level(ci, p)) < 0) p = p->parent;
   if (j >= 0) pending_add(known + (unsigned long)j * f->n, nd->pending, f->n);
}

typedef struct {
   const bd_tree     *tree;
   const chain_index *ci;
   uint64_t          *known;
} chain_visit;

static void add_if_in_tree(bd_forest *f, bd_node *nd, void *arg)
{
   const chain_visit *v = arg;
   if (nd->tree == v->tree) add_to_chain(f, v->ci, nd, v->known);
}

int bd_chain_known(const bd_tree *t, void **arcs, uint64_t *known, int max)
{
   bd_forest *f = t->forest;          /* visit_all is read-only here */
   const bd_node *nd;
   chain_index ci;
   chain_visit v;
   int levels, depth = 0, j;

   if (!t->active || max <= 0) return 0;
   for (nd = t->active; nd; nd = nd->parent) depth++;
   levels = depth < max ? depth : max;
   chain_index_init(&ci, t->active, levels);
   for (j = 0; j < levels * f->n; j++) known[j] = 0;
   for (nd = t->active; nd; nd = nd->parent)
      if (--depth < levels) arcs[depth] = nd->arc;

   v.tree = t;
   v.ci = &ci;
   v.known = known;
   visit_all(f, add_if_in_tree, &v);
   for (j = levels - 1; j > 0; j--)              /* subtree sums */
      pending_add(known + (unsigned long)(j - 1) * f->n,
                  known + (unsigned long)j * f->n, f->n);
   bd_free(ci.node);
   bd_free(ci.level);
   return levels;
}

/* ------------------------------------------------------------------------
** Statistics
*/
void bd_get_stats(const bd_forest *f, bd_stats *s)
{
   s->trees = f->n_trees;
   s->nodes_now = f->nodes_now;
   s->nodes_max = f->nodes_max;
   s->nodes_created = f->nodes_created;
   s->nodes_pruned = f->nodes_pruned;
   s->calls = f->calls;
   s->nodes_avg = f->calls ? (double)f->nodes_sum / (double)f->calls : 0.0;
}

/* ------------------------------------------------------------------------
** Consistency check
*/
typedef struct {
   uint64_t nodes, kids, hashed_kids;
} check_acc;

/* nd's kid[] as I4 wants it; a free slot has tree NULL, so this also
** catches dangling links. */
static void check_kids(const bd_node *nd, check_acc *acc)
{
   const bd_node *k0 = nd->kid[0], *k1 = nd->kid[1];
   if ((k0 && (!k0->tree || k0->parent != nd))
       || (k1 && (!k1->tree || k1->parent != nd)))
      bd_fail("bd_check: kid[] holds no child (I4)");
   if (nd->kids_hashed) {
      if (k1 || nd->nkids == 0)
         bd_fail("bd_check: hashed children without hint form (I4)");
      acc->hashed_kids += nd->nkids;
      return;
   }
   if (nd->nkids != (uint32_t)(k0 != 0) + (k1 != 0) || (!k0 && k1)
       || (k1 && (k0 == k1 || k0->arc == k1->arc)))
      bd_fail("bd_check: kid[] is not the children (I3, I4)");
}

static void check_node(bd_forest *f, bd_node *nd, void *arg)
{
   check_acc *acc = arg;
   const bd_node *p = nd->parent;

   acc->nodes++;
   acc->kids += nd->nkids;
   if (prunable(nd)) bd_fail("bd_check: prunable node alive (I1)");
   check_kids(nd, acc);
   if (!p) {
      if (nd->arc || nd->tree->root != nd)
         bd_fail("bd_check: bad root");
      return;
   }
   /* A free parent has tree NULL, so this also catches dangling links. */
   if (p->tree != nd->tree) bd_fail("bd_check: parent dead or foreign");
   if (hash_find(f, p, nd->arc) != (p->kids_hashed ? nd : 0)
       || (!p->kids_hashed && p->kid[0] != nd && p->kid[1] != nd))
      bd_fail("bd_check: (parent, arc) not unique (I3)");
}

static void check_tree(const bd_forest *f, const bd_tree *t)
{
   const bd_node *nd = t->active;
   int depth = 0;
   if (t->forest != f) bd_fail("bd_check: tree in wrong forest");
   if (!nd) return;                           /* closed (I5) */
   while (nd->parent) {
      if (nd != t->active && nd->nkids == 0)
         bd_fail("bd_check: active chain broken (I2)");
      nd = nd->parent;
      depth++;
   }
   if (nd != t->root || depth + t->npend != t->depth)
      bd_fail("bd_check: active chain does not match depth");
}

uint64_t bd_check(const bd_forest *cf)
{
   bd_forest *f = (bd_forest *)cf;   /* visit_all is read-only here */
   check_acc acc = { 0, 0, 0 };
   const bd_tree *t;
   uint64_t trees = 0;

   for (t = f->trees; t; t = t->next) {
      check_tree(f, t);
      trees++;
   }
   visit_all(f, check_node, &acc);
   if (trees != f->n_trees) bd_fail("bd_check: tree count");
   if (acc.nodes != f->nodes_now) bd_fail("bd_check: node count");
   if (acc.hashed_kids != f->hash_count) bd_fail("bd_check: hash count");
   if (acc.kids + f->n_trees != f->nodes_now)
      bd_fail("bd_check: child counts");
   if (f->nodes_created - f->nodes_pruned != f->nodes_now)
      bd_fail("bd_check: created/pruned mismatch");
   return acc.nodes;
}
