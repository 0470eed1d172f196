/*
** lrustack.c -- LRU stack of lines with distance buckets (see lrustack.h
** for the model).
**
** Representation: a doubly linked list of nodes, most recent first, found
** through a chained hash table keyed by line number.  Nodes are indices
** into one array (24 bytes each) that doubles as lines arrive, up to
** capacity + 1; node 0 is the list's sentinel and the "none" index.
**
** Bucket markers: tail[j] is the deepest node of bucket j, kept only while
** the bucket is full (count >= e[j+1]).  When a line moves to the front
** from bucket k (or arrives), every line above it goes one position deeper,
** so for each bucket j < k exactly one line crosses an edge: the old
** tail[j] enters bucket j+1, and its predecessor becomes tail[j].  Every
** other node keeps its bucket, so a reference costs one hash lookup plus
** k marker moves.
**
** Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
*/
#include "lrustack.h"
#include "cachesim.h"          /* cs_alloc, cs_free, cs_fail */

#define MIN_NODES 64

/* Neighbouring lines go to neighbouring chains (a sweep walks the table
   instead of missing the host's cache on every lookup); the higher bits
   are folded in so that power-of-two strides still spread. */
static uint32_t hash_of(const ls_stack *s, uint64_t line)
{
   int b = (int)s->table_bits;
   return (uint32_t)(line ^ (line >> b) ^ (line >> 2 * b)) & ((1u << b) - 1);
}

static void alloc_table(ls_stack *s, uint32_t bits)
{
   s->table_bits = bits;
   s->table = cs_alloc(sizeof(uint32_t) << bits);
}

static void init_edges(ls_stack *s, int pow2_buckets)
{
   int k = 0;
   uint32_t e;

   s->edge[k++] = 0;
   if (pow2_buckets)
      for (e = 1; e < s->capacity && k < LS_MAX_BUCKETS; e *= 2)
         s->edge[k++] = e;
   s->edge[k] = s->capacity;
   s->n_buckets = k;
}

ls_stack *ls_new(uint32_t capacity, int pow2_buckets)
{
   ls_stack *s = cs_alloc(sizeof(ls_stack));

   if (capacity == 0 || capacity >= 0xffffffffu)
      cs_fail("lrustack: capacity out of range");
   s->capacity = capacity;
   init_edges(s, pow2_buckets);
   s->n_alloc = capacity + 1 < MIN_NODES ? capacity + 1 : MIN_NODES;
   s->node = cs_alloc(sizeof(ls_node) * s->n_alloc);
   s->n_used = 1;
   alloc_table(s, 6);
   return s;
}

void ls_delete(ls_stack *s)
{
   if (!s)
      return;
   cs_free(s->node);
   cs_free(s->table);
   cs_free(s);
}

void ls_clear(ls_stack *s)
{
   uint32_t i, n = 1u << s->table_bits;

   for (i = 0; i < n; i++)
      s->table[i] = 0;
   s->node[0].next = s->node[0].prev = 0;
   s->n_used = 1;
   s->count = 0;
}

/* ---- hash ----------------------------------------------------------- */

static uint32_t lookup(const ls_stack *s, uint64_t line)
{
   uint32_t i = s->table[hash_of(s, line)];

   while (i && s->node[i].line != line)
      i = s->node[i].hnext;
   return i;
}

static void hash_insert(ls_stack *s, uint32_t i)
{
   uint32_t h = hash_of(s, s->node[i].line);

   s->node[i].hnext = s->table[h];
   s->table[h] = i;
}

static void hash_remove(ls_stack *s, uint32_t i)
{
   uint32_t *p = &s->table[hash_of(s, s->node[i].line)];

   while (*p != i)
      p = &s->node[*p].hnext;
   *p = s->node[i].hnext;
}

/* At most one line per two chains, so that a lookup mostly reads one
   node: once the stack outgrows the host's caches every node visited is a
   host cache miss. */
static void grow_table(ls_stack *s)
{
   uint32_t i;

   cs_free(s->table);
   alloc_table(s, s->table_bits + 1);
   for (i = s->node[0].next; i; i = s->node[i].next)
      hash_insert(s, i);
}

/* ---- list ------------------------------------------------------------ */

static void unlink_node(ls_stack *s, uint32_t i)
{
   ls_node *n = &s->node[i];

   s->node[n->prev].next = n->next;
   s->node[n->next].prev = n->prev;
}

static void push_front(ls_stack *s, uint32_t i)
{
   ls_node *n = &s->node[i];

   n->prev = 0;
   n->next = s->node[0].next;
   s->node[n->next].prev = i;
   s->node[0].next = i;
   n->bucket = 0;
   s->mru_line = n->line;
}

/* After a push to the front: the full bucket j's deepest line has gone
   one position deeper, into bucket j+1. */
static void slide_marker(ls_stack *s, int j)
{
   uint32_t t = s->tail[j];

   s->node[t].bucket = (uint32_t)j + 1;
   s->tail[j] = s->node[t].prev;
   /* the next reference slides this marker again: start loading its node
      (deep markers sit on lines referenced long ago, out of the host's
      caches) */
   __builtin_prefetch(&s->node[s->tail[j]]);
}

static uint32_t new_node(ls_stack *s)
{
   if (s->n_used == s->n_alloc) {
      uint64_t n = (uint64_t)s->n_alloc * 2;
      ls_node *bigger;
      uint32_t i;

      if (n > (uint64_t)s->capacity + 1)
         n = (uint64_t)s->capacity + 1;
      bigger = cs_alloc(sizeof(ls_node) * n);
      for (i = 0; i < s->n_used; i++)
         bigger[i] = s->node[i];
      cs_free(s->node);
      s->node = bigger;
      s->n_alloc = (uint32_t)n;
   }
   return s->n_used++;
}

/* ---- references --------------------------------------------------------- */

/* A line in the stack, in bucket k, goes to the front. */
static void move_to_front(ls_stack *s, uint32_t i, int k)
{
   int j;

   if (s->count >= s->edge[k + 1] && s->tail[k] == i)
      s->tail[k] = s->node[i].prev;
   unlink_node(s, i);
   push_front(s, i);
   for (j = 0; j < k; j++)
      slide_marker(s, j);
}

/* A line not in the stack arrives at the front; the deepest line leaves
   if the stack is full. */
static void insert_line(ls_stack *s, uint64_t line)
{
   int j, last = s->n_buckets - 1;
   uint32_t i, old_count = s->count;

   if (old_count == s->capacity) {
      i = s->node[0].prev;                 /* the LRU line: tail[last] */
      s->tail[last] = s->node[i].prev;
      unlink_node(s, i);
      hash_remove(s, i);
   } else {
      i = new_node(s);
      s->count++;
      if (s->count > (1u << (s->table_bits - 1)))
         grow_table(s);
   }
   s->node[i].line = line;
   hash_insert(s, i);
   push_front(s, i);
   for (j = 0; j < last && old_count >= s->edge[j + 1]; j++)
      slide_marker(s, j);
   if (old_count == s->capacity) {
      if (s->tail[last] == 0)              /* capacity 1 */
         s->tail[last] = i;
      return;
   }
   /* j: the bucket that holds the new deepest position, old_count */
   if (s->count == s->edge[j + 1])
      s->tail[j] = s->node[0].prev;
}

/* Most references go to one of the few most recent lines (the stack, a
   loop's couple of arrays): look at them before hashing, their nodes are
   in the host's cache. */
#define NEAR_TOP 4

static inline int ref(ls_stack *s, uint64_t line, int near)
{
   uint32_t i = 0;
   int k, n;

   if (s->count > 0 && s->mru_line == line)
      return 0;
   if (near)
      for (i = s->node[0].next, n = 0; i && n < NEAR_TOP;
           i = s->node[i].next, n++)
         if (s->node[i].line == line)
            break;
   if (!i || !near || n == NEAR_TOP)
      i = lookup(s, line);
   if (!i) {
      insert_line(s, line);
      return LS_ABSENT;
   }
   k = (int)s->node[i].bucket;
   move_to_front(s, i, k);
   return k;
}

int ls_ref(ls_stack *s, uint64_t line)
{
   return ref(s, line, 1);
}

int ls_ref_far(ls_stack *s, uint64_t line)
{
   return ref(s, line, 0);
}
