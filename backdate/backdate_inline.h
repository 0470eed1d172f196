/*
** backdate_inline.h -- the tree's data structures and the operations the
** tool runs for every cache line (bd_ref, bd_evict, bd_active), inline.
**
** Included by backdate.h only.  The structs are here (not in backdate.c)
** so these per-miss operations cost no call; their rare slow parts
** (pruning, building lazily called nodes) stay in backdate.c.  Callers
** must treat the structs as private.
**
** Copyright (C) the callgrind-bd authors.  GPL-2.0-or-later.
*/
#ifndef BACKDATE_INLINE_H
#define BACKDATE_INLINE_H

struct bd_node {
   bd_node  *parent;      /* NULL for a root                              */
   void     *arc;         /* the tool's call arc; NULL for a root         */
   bd_tree  *tree;        /* owning tree; NULL while on the free list     */
   bd_node  *hnext;       /* hash chain; free-list link when free         */
   bd_node  *kid[2];      /* FEW KIDS (backdate.c): the children, while
                             there are at most two and kids_hashed is
                             clear; with it, kid[0] is a hint (the child
                             entered last) and kid[1] NULL (I4); kid[0]
                             is settle's stack link                       */
   uint32_t  refs;        /* cache lines referencing this node            */
   uint32_t  nkids : 31;  /* live children                                */
   uint32_t  kids_hashed : 1; /* the children are in the forest's hash    */
   uint64_t  pending[];   /* n counters, not yet delivered                */
};

struct bd_tree {
   bd_forest *forest;
   bd_node   *root;
   bd_node   *active;     /* deepest node of the active chain built so
                             far; NULL once closed                       */
   void     **pend;       /* arcs called below active whose nodes are not
                             built yet (LAZY CHAIN, see bd_call)          */
   int        npend, pend_size;
   bd_tree   *prev, *next;/* the forest's list of live trees              */
   int        depth;      /* calls between root and the running function  */
};

/* Header of a pool chunk; the node slots (multiples of 8 bytes) follow. */
typedef struct bd_chunk {
   struct bd_chunk *next;
   uint64_t         nodes;  /* slots in the chunk (visit_all walks them) */
} bd_chunk;

struct bd_forest {
   int            n;             /* events per node                       */
   unsigned long  node_size;     /* bytes per node slot                   */
   bd_deliver_fn  deliver;
   void          *ctx;

   bd_node       *free_nodes;    /* pool: reusable slots                  */
   bd_chunk      *chunks;        /* pool: every chunk, for bd_forest_free */
   unsigned long  chunk_nodes;   /* slots in the next chunk               */

   bd_node      **bucket;        /* hash of the children of nodes with
                                    kids_hashed, by (parent, arc)         */
   unsigned       hash_bits;     /* 2^hash_bits buckets                   */
   uint64_t       hash_count;

   bd_tag_fn      tag;           /* bd_forest_tags, or NULL: the tag is   */
   bd_tag_deliver_fn deliver_tag; /*   the pointer after pending[n]        */
   void          *tag_ctx;

   bd_tree       *trees;         /* live trees                            */
   uint64_t       root_total[BD_MAX_EVENTS];

   uint64_t       n_trees, nodes_now, nodes_max;
   uint64_t       nodes_created, nodes_pruned, calls, nodes_sum;
};

/* The slow halves, in backdate.c. */
void bd__prune_upward(bd_forest *f, bd_node *nd);
void bd__materialize(bd_tree *t);

static inline bd_node *bd_active(bd_tree *t)
{
   if (t->npend > 0) bd__materialize(t);
   return t->active;
}

static inline void bd_ref(bd_node *nd)
{
   if (!nd || !nd->tree) bd_fail("bd_ref: not a live node");
   if (++nd->refs == 0) bd_fail("bd_ref: reference count overflow");
}

static inline void bd_evict(bd_node *nd, const uint64_t *costs)
{
   bd_forest *f;
   int i;
   if (!nd || !nd->tree || nd->refs == 0)
      bd_fail("bd_evict: node holds no reference");
   f = nd->tree->forest;
   if (costs)
      for (i = 0; i < f->n; i++) nd->pending[i] += costs[i];
   if (--nd->refs == 0) bd__prune_upward(f, nd);
}

/* bd_evict for costs that are zero but for counters first and first + 1
** (first + 1 < the forest's event count): the same effect with two
** additions, for the tool's per-level AcCost/SpLoss pair. */
static inline void bd_evict2(bd_node *nd, int first, uint64_t a, uint64_t b)
{
   if (!nd || !nd->tree || nd->refs == 0)
      bd_fail("bd_evict: node holds no reference");
   nd->pending[first] += a;
   nd->pending[first + 1] += b;
   if (--nd->refs == 0) bd__prune_upward(nd->tree->forest, nd);
}

#endif /* BACKDATE_INLINE_H */
