/* callgrind-bd: --paths=yes, the costs of every full call path
 * (<profile>.paths beside each profile file, docs/paths-format.md).
 *
 * A calling-context tree per execution context (a thread's flow or a
 * running signal handler): a node is a function as the profile names it
 * (context and recursion level, fn'2'caller) under a parent node. The
 * context's current node follows the shadow call stack: a call moves it
 * to the child for the callee, a return back to the node the frame
 * remembers. A call of a function already on the current path (same
 * name) goes back to that node instead of making a deeper one: a
 * recursion costs no node per level, and its levels are told apart just
 * as far as --separate-recs names them apart.
 *
 * Immediate events: at every move the growth of the context's running
 * counter since the last move goes to the node being left, so a node
 * holds the self cost of its path, with no per-instruction work (the
 * arcs' inclusive costs come from the same counter). Back-dated events
 * (AcCost, SpLoss, ...; known when a line leaves the cache) reach the
 * node through the back-dating tree: every tree node carries the path
 * node of its chain as its tag (backdate.h), made from its parent's tag
 * and its arc when the tree builds it; the metrics leaving a tree node
 * (pruned, or settled before a dump) are its path's self cost and no
 * more its parent's (backdating.c), so the cache model's evictions cost
 * nothing more. With --objects=yes a line's metrics go on at its eviction
 * from its path to the path's leaf of the line's data object (a node
 * whose "function" is the object: the object as the last frame).
 *
 * Finding the callee's node is the per-call work that costs (a host
 * cache miss for each node or table line it reads, the paths being
 * visited in any order): the arc's memo (the last path it was taken
 * from), the node's first KIDS calls kept in it (while it has room for
 * more, all of its calls: a call not among them is new, no table asked),
 * a table of the other children that reads no node but the one found,
 * a walk up the path for a recursion (the alias table when far).
 *
 * Nodes are never freed: their number is that of the distinct paths,
 * counted by --max-memory ("call paths"). A dump writes every node with
 * a cost since the last dump, and the nodes on its path, each once and a
 * parent first (docs/paths-format.md, version 2), then zeroes them, like
 * the profile.
 *
 * Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
 */
#include "global.h"
#include "objects.h"
#include "paths.h"

#define KIDS CB_PATHS_KIDS
/* Ids stay below 2^31: the bit marks a root's parent field. */
#define ROOT_BIT 0x80000000U

/* struct path_node: paths.h (the inlined per-call work reads it). */

/* Nodes are carved from chunks of CHUNK_NODES (never freed): no allocator
 * header each, and an id is enough to find a node (an id is half a
 * pointer, in the nodes and in the hash). Id 0 names no node. */
#define CHUNK_BITS  12
#define CHUNK_NODES (1U << CHUNK_BITS)
static UChar **chunks;
static UInt n_chunks, chunks_size;
static UInt n_nodes;                /* the last id given */
static SizeT node_bytes;

/* The children their parent does not keep (made by its calls after the
 * first KIDS, object leaves), by (parent, function): open addressing, at
 * most 3/4 used; a slot holds the key's 32-bit hash beside the id, so a
 * probe and a growth read no node (a hit reads the node found, the one
 * the call moves to: the next charge wants its line anyway). */
typedef struct { UInt hash, id; } child_slot;   /* id 0: free */
static child_slot *slots;
static UInt slot_bits, n_children;

/* A call from a node to a function already on its path goes back to that
 * ancestor (a recursion): (from, function) -> ancestor, open addressing. */
typedef struct path_alias {
   UInt       from;          /* 0: a free entry */
   UInt       to;
   UInt       fn;
} path_alias;
static path_alias *aliases;
static UWord alias_bits, n_aliases;

/* With --paths a JCC is followed by its memo (paths.h). */
SizeT cb_paths_jcc_bytes(void)
{
   return cb_clo.paths ? sizeof(cb_paths_memo) : 0;
}

/*------------------------------------------------------------*/
/*--- The functions, numbered                              ---*/
/*------------------------------------------------------------*/

/* A node names its function at its recursion level (a context and its
 * BBCC rec_index, or a data object) by number: a context's levels take
 * consecutive numbers from its first (context.c keeps it in path_fn, 0
 * before), as many as its function has levels (rec_index stays below
 * separate_recs); an object takes one (its number in a table here: only
 * its evictions ask). Number 0 names no function. A block of numbers is
 * one entry, found by its first number when a file names it. */
typedef struct {
   UInt        first;       /* its first number; the blocks in their order */
   Bool        object;      /* who is a data object (one number), else a context */
   const void *who;
} fn_block;
static fn_block *fn_blocks;
static UInt n_fn_blocks, fn_blocks_size, n_fns;

/* count new numbers for who (an object: one): the first. */
static UInt fn_numbers_new(const void *who, Bool object, UInt count)
{
   UInt first = n_fns + 1;
   tl_assert(first + count > first);
   if (n_fn_blocks == fn_blocks_size) {
      UInt size = fn_blocks_size ? 2 * fn_blocks_size : 256;
      fn_blocks = cb_mem_realloc(CB_MEM_PATHS, "cb.paths.fns", fn_blocks,
                                 fn_blocks_size * sizeof *fn_blocks, size * sizeof *fn_blocks);
      fn_blocks_size = size;
   }
   fn_blocks[n_fn_blocks].first = first;
   fn_blocks[n_fn_blocks].object = object;
   fn_blocks[n_fn_blocks].who = who;
   n_fn_blocks++;
   n_fns += count;
   return first;
}

/* The block of number fn (not 0), and *rec its level in it (0 for an
 * object: a data object as the last frame of a path, --objects=yes). */
static const fn_block *fn_block_of(UInt fn, UInt *rec)
{
   UInt lo = 0, hi = n_fn_blocks;     /* the block: the last with first <= fn */
   while (hi - lo > 1) {
      UInt mid = lo + (hi - lo) / 2;
      if (fn_blocks[mid].first <= fn) lo = mid; else hi = mid;
   }
   *rec = fn - fn_blocks[lo].first;
   return &fn_blocks[lo];
}

/* The number of b's function at b's level (0 while b has no context). */
static inline UInt fn_number(const BBCC *b)
{
   context *cxt = b->cxt;
   if (!cxt) return 0;
   if (!cxt->path_fn)
      cxt->path_fn = fn_numbers_new(cxt, False, cxt->fn[0]->separate_recs > 1
                                                ? cxt->fn[0]->separate_recs : 1);
   return cxt->path_fn + b->rec_index;
}

/* The objects' numbers: open addressing by the object's address. */
typedef struct { const struct cb_obj *obj; UInt fn; } object_fn_slot;
static object_fn_slot *object_fns;
static UInt object_fn_bits, n_object_fns;

static object_fn_slot *object_fn_find(const struct cb_obj *obj)
{
   UInt mask = (1U << object_fn_bits) - 1;
   UWord s = (((UWord)obj >> 3) * 0x9E3779B97F4A7C15ULL) >> (64 - object_fn_bits);
   for (;; s = (s + 1) & mask)
      if (!object_fns[s].obj || object_fns[s].obj == obj) return &object_fns[s];
}

/* Twice the slots (256 at first) when 3/4 would be used. */
static void object_fns_make_room(void)
{
   UInt old_size = object_fns ? 1U << object_fn_bits : 0, i;
   object_fn_slot *old = object_fns;
   if (object_fns && 4 * (n_object_fns + 1) <= 3 * old_size) return;
   object_fn_bits = object_fns ? object_fn_bits + 1 : 8;
   object_fns = cb_mem_alloc(CB_MEM_PATHS, "cb.paths.objfns",
                             (SizeT)(1U << object_fn_bits) * sizeof *object_fns);
   VG_(memset)(object_fns, 0, (SizeT)(1U << object_fn_bits) * sizeof *object_fns);
   for (i = 0; i < old_size; i++)
      if (old[i].obj) *object_fn_find(old[i].obj) = old[i];
   if (old) cb_mem_free(CB_MEM_PATHS, old, old_size * sizeof *old);
}

static UInt object_fn(const struct cb_obj *obj)
{
   object_fn_slot *sl;
   object_fns_make_room();
   sl = object_fn_find(obj);
   if (!sl->obj) {
      sl->obj = obj;
      sl->fn = fn_numbers_new(obj, True, 1);
      n_object_fns++;
   }
   return sl->fn;
}

/*------------------------------------------------------------*/
/*--- The tree                                             ---*/
/*------------------------------------------------------------*/

static inline path_node *node_at(UInt id)
{
   return (path_node *)(chunks[id >> CHUNK_BITS] + (SizeT)(id & (CHUNK_NODES - 1)) * node_bytes);
}

static UWord key_hash(UInt parent, UInt fn, UInt bits)
{
   UWord h = (UWord)parent * 0x9E3779B97F4A7C15ULL ^ (UWord)fn * 0xC2B2AE3D27D4EB4FULL;
   return (h * 0x9E3779B97F4A7C15ULL) >> (64 - bits);
}

static UInt child_hash(UInt parent, UInt fn)
{
   return (UInt)(key_hash(parent, fn, 64) >> 32);
}

/* The slot of hash h: the free one where it would go, or the first
 * with it (an id whose node may still differ in key). */
static inline child_slot *slot_probe(UInt h, UInt *index)
{
   UInt mask = (1U << slot_bits) - 1;
   child_slot *sl;
   for (;; *index = (*index + 1) & mask) {
      sl = &slots[*index];
      if (!sl->id || sl->hash == h) return sl;
   }
}

static void slot_put(UInt h, UInt id)
{
   UInt i = h >> (32 - slot_bits);
   child_slot *sl = slot_probe(h, &i);
   while (sl->id) {                 /* a node of the same hash: past it */
      i = (i + 1) & ((1U << slot_bits) - 1);
      sl = slot_probe(h, &i);
   }
   sl->hash = h;
   sl->id = id;
}

/* Twice the slots (4096 at first), from the hashes kept in them. */
static void slots_grow(void)
{
   UInt old_size = slots ? 1U << slot_bits : 0, i;
   child_slot *old = slots;
   slot_bits = slots ? slot_bits + 1 : 12;
   slots = cb_mem_alloc(CB_MEM_PATHS, "cb.paths.hash", (SizeT)(1U << slot_bits) * sizeof *slots);
   VG_(memset)(slots, 0, (SizeT)(1U << slot_bits) * sizeof *slots);
   for (i = 0; i < old_size; i++)
      if (old[i].id) slot_put(old[i].hash, old[i].id);
   if (old) cb_mem_free(CB_MEM_PATHS, old, old_size * sizeof *old);
}

/* n got its parent: findable from now on. */
static void child_insert(path_node *n)
{
   if (!slots || 4 * (n_children + 1) > 3 * (1U << slot_bits)) slots_grow();
   slot_put(child_hash(n->parent, n->fn), n->id);
   n_children++;
}

static path_node *child_find(UInt parent, UInt fn)
{
   UInt h, i;
   child_slot *sl;
   if (!slots) return NULL;
   h = child_hash(parent, fn);
   i = h >> (32 - slot_bits);
   for (sl = slot_probe(h, &i); sl->id; ) {
      path_node *n = node_at(sl->id);
      if (n->parent == parent && n->fn == fn) return n;
      i = (i + 1) & ((1U << slot_bits) - 1);
      sl = slot_probe(h, &i);
   }
   return NULL;
}

/* The alias of (from, fn), or the free entry where it would go. */
static path_alias *alias_find(UInt from, UInt fn)
{
   UWord mask = (1UL << alias_bits) - 1, s = key_hash(from, fn, alias_bits);
   for (;; s = (s + 1) & mask) {
      path_alias *a = &aliases[s];
      if (!a->from || (a->from == from && a->fn == fn)) return a;
   }
}

/* Twice the entries (1024 at first) when 3/4 would be used. */
static void aliases_make_room(void)
{
   UWord old_size = aliases ? 1UL << alias_bits : 0, i;
   path_alias *old = aliases;
   if (aliases && 4 * (n_aliases + 1) <= 3 * old_size) return;
   alias_bits = aliases ? alias_bits + 1 : 10;
   aliases = cb_mem_alloc(CB_MEM_PATHS, "cb.paths.aliases", (1UL << alias_bits) * sizeof *aliases);
   VG_(memset)(aliases, 0, (1UL << alias_bits) * sizeof *aliases);
   for (i = 0; i < old_size; i++)
      if (old[i].from) *alias_find(old[i].from, old[i].fn) = old[i];
   if (old) cb_mem_free(CB_MEM_PATHS, old, old_size * sizeof *old);
}

static void alias_add(const path_node *from, UInt fn, const path_node *to)
{
   path_alias *a;
   aliases_make_room();
   a = alias_find(from->id, fn);
   a->from = from->id;
   a->to = to->id;
   a->fn = fn;
   n_aliases++;
}

/* A fresh node, zeroed but for its id. */
static path_node *node_alloc(void)
{
   UInt id = n_nodes + 1;
   path_node *n;
   if (n_nodes == 0) node_bytes = sizeof(path_node) + cb_n_events * sizeof(ULong);
   if ((id >> CHUNK_BITS) == n_chunks) {
      if (n_chunks == chunks_size) {
         UInt size = chunks_size ? 2 * chunks_size : 64;
         chunks = cb_mem_realloc(CB_MEM_PATHS, "cb.paths.chunks", chunks,
                                 chunks_size * sizeof *chunks, size * sizeof *chunks);
         chunks_size = size;
      }
      chunks[n_chunks++] = cb_mem_alloc(CB_MEM_PATHS, "cb.paths.nodes", CHUNK_NODES * node_bytes);
   }
   tl_assert(id < ROOT_BIT);
   n_nodes = id;
   n = node_at(id);
   VG_(memset)(n, 0, node_bytes);
   n->id = id;
   return n;
}

static inline Bool is_root(const path_node *n)
{
   return (n->parent & ROOT_BIT) != 0;
}

static inline UInt root_thread(const path_node *root)
{
   return root->parent & ~ROOT_BIT;
}

/* The thread of the first root, and whether another thread has roots:
 * while not, every node is that thread's. */
static UInt first_tid;
static Bool threads_mixed;

static path_node *root_new(UInt fn, UInt tid)
{
   path_node *n = node_alloc();
   n->parent = ROOT_BIT | tid;
   if (!first_tid) first_tid = tid;
   else if (tid != first_tid) threads_mixed = True;
   n->fn = fn;
   return n;
}

/* A call from a node to a function this many levels up its path or
 * nearer finds it by walking up (the ancestors were visited lately: hot
 * in the host's caches, where the alias table's entry is a miss); only
 * farther ones go in the alias table. */
#define NEAR_LEVELS 16

/* The ancestor of from (or from itself) named fn at most max_levels
 * up, or NULL; *levels: how far the walk went. */
static path_node *ancestor_named(path_node *from, UInt fn, UInt max_levels, UInt *levels)
{
   path_node *a = from;
   for (*levels = 0;; a = node_at(a->parent), (*levels)++) {
      if (a->fn == fn) return a;
      if (is_root(a) || *levels == max_levels) return NULL;
   }
}

/* A new child of parent for fn: in the table unless parent keeps it (a
 * kept call is always found among parent's first). */
static path_node *child_new(path_node *parent, UInt fn, Bool kept)
{
   path_node *n = node_alloc();
   n->parent = parent->id;
   n->fn = fn;
   if (!kept) child_insert(n);
   return n;
}

/* Where a call from parent's path to fn goes the first time:
 * parent itself or an ancestor when the function is running already (an
 * alias: in the alias table when far and not kept by parent), else a
 * new child. */
static path_node *new_call(path_node *parent, UInt fn, Bool kept)
{
   UInt levels;
   path_node *n = ancestor_named(parent, fn, ~0U, &levels);
   if (n) {
      if (!kept && levels > NEAR_LEVELS) alias_add(parent, fn, n);
      return n;
   }
   return child_new(parent, fn, kept);
}

static inline UChar kid_tag(UInt fn)
{
   return (UChar)((fn * 0x9E3779B9U) >> 24);
}

/* parent keeps the call to fn in its free entry k. */
static void kid_keep(path_node *parent, UInt k, UChar tag, const path_node *n)
{
   parent->kid_tag[k] = tag;
   parent->kid_id[k] = n->id;
}

/* The call to fn that parent keeps, or NULL and *free_k its first free
 * entry (KIDS when full). The four tags compared at once (an equal byte
 * sets its top bit in match; a byte above an equal one may be set
 * falsely: the node's function tells): no branch per entry, whose outcome
 * a program calling its callees in turn mispredicts. */
static inline path_node *kept_call(const path_node *parent, UInt fn, UChar tag, UInt *free_k)
{
   UInt tags, diff, match, k;
   path_node *n;
   STATIC_ASSERT(KIDS == sizeof tags);
   __builtin_memcpy(&tags, parent->kid_tag, sizeof tags);   /* one load */
   diff = tags ^ (tag * 0x01010101U);
   match = (diff - 0x01010101U) & ~diff & 0x80808080U;
   for (; match; match &= match - 1) {
      k = __builtin_ctz(match) >> 3;
      if (!parent->kid_id[k]) break;     /* a free entry: so are those after it */
      n = node_at(parent->kid_id[k]);
      if (n->fn == fn) return n;
   }
   for (k = 0; k < KIDS && parent->kid_id[k]; k++) ;
   *free_k = k;
   return NULL;
}

/* Where a call from parent's path to fn goes: one of the calls
 * parent keeps; while it has room for more, those are all its calls so
 * far (every node made under it, every recursion back from it), so a
 * call not among them is new and asks no table; else a child in the
 * table, an ancestor found by walking up NEAR_LEVELS, a farther one in
 * the alias table, or a node made now. */
static inline __attribute__((always_inline)) path_node *callee_node(path_node *parent, UInt fn)
{
   UChar tag = kid_tag(fn);
   UInt k, levels;
   path_node *n = kept_call(parent, fn, tag, &k);
   if (n) return n;
   if (k < KIDS) {
      n = new_call(parent, fn, True);
      kid_keep(parent, k, tag, n);
      return n;
   }
   n = child_find(parent->id, fn);
   if (n) return n;
   n = ancestor_named(parent, fn, NEAR_LEVELS, &levels);
   if (n) return n;
   if (levels < NEAR_LEVELS)             /* the whole path walked */
      return child_new(parent, fn, False);
   if (n_aliases) {
      path_alias *a = alias_find(parent->id, fn);
      if (a->from) return node_at(a->to);
   }
   return new_call(parent, fn, False);
}

/* Where jcc's call from parent's path goes: the arc's memo first. */
static inline path_node *call_target(JCC *jcc, path_node *parent)
{
   cb_paths_memo *m = cb_paths_memo_of(jcc);
   if (m->from != parent) {
      if (!m->fn) m->fn = fn_number(jcc->to);
      m->to = callee_node(parent, m->fn);
      m->from = parent;
   }
   /* the next move charges it: its line on the way while the callee runs */
   __builtin_prefetch(m->to, 1);
   return m->to;
}

/* The back-dating tree's tag function: a tree node's path node is the
 * one its arc's call leads to from its parent's. */
void *cb_paths_tag(void *ctx, void *parent_tag, void *arc)
{
   if (!parent_tag) return NULL;
   return call_target(arc, parent_tag);
}

/*------------------------------------------------------------*/
/*--- Moving along the call stack                          ---*/
/*------------------------------------------------------------*/

/* A root takes the name of the first function seen running in it (the
 * bottom function has no call to name it). */
static void name_root(path_node *n, const BBCC *running)
{
   if (running) n->fn = fn_number(running);
}

/* The running counters never hold a back-dated event (those reach the
 * paths through the trees): a charge covers the positions up to the
 * last other event's, which are the first ones unless --latency's
 * follow (set with the first context). */
Int cb_paths_charged;

static void count_charged(void)
{
   Int e;
   cb_paths_charged = 0;
   for (e = 0; e < EV_COUNT; e++)
      if (cb_ev_pos[e] >= cb_paths_charged && !cb_event_backdated(e)) cb_paths_charged = cb_ev_pos[e] + 1;
}

/* The running counter's growth since the last move, to the current node. */
static inline void charge(exec_state *es, const BBCC *running)
{
   path_node *n = es->path_cur;
   if (!n) return;
   if (UNLIKELY(!n->fn)) name_root(n, running);
   cb_paths_charge_named(es, n);
}

/* A new execution context (a thread, a signal handler starting): a root
 * of its own, its running counter at zero. */
void cb_paths_new_context(exec_state *es, ThreadId tid)
{
   if (!cb_clo.paths) return;
   if (!cb_paths_charged) count_charged();
   if (!es->path_snap) es->path_snap = cb_new_cost(CB_MEM_PATHS);
   cb_copy_cost(es->path_snap, es->cost);
   es->path_root = es->path_cur = root_new(0, tid);
}

/* Instrumentation switched (instrument.c): every frame was popped, and
 * what runs next was called by no call seen. Its costs must not go to
 * the old root's function: a new root, named by the first function that
 * runs (the caller restarts the back-dating tree under it; its old nodes
 * keep their paths). */
void cb_paths_restart(thread_info *t)
{
   exec_state *es = t->states[0];
   if (!cb_clo.paths || !es->path_cur) return;
   charge(es, es->bbcc);
   es->path_root = es->path_cur = root_new(0, t->tid);
   es->path_adoptable = True;
}

/* A thread ended and its frames were popped (main.c); the next thread
 * Valgrind gives its id is another flow: a root of its own, as for a new
 * thread (the caller gives it a new back-dating tree: lines the old one
 * loaded keep their paths). Its profile is the old one's, as the
 * reference's with --separate-threads=yes, and so is its paths file. */
void cb_paths_thread_exit(thread_info *t)
{
   exec_state *es = t->states[0];
   if (!cb_clo.paths || !es->path_cur) return;
   charge(es, es == cb_cur.es ? cb_cur.bbcc : es->bbcc);
   es->path_root = es->path_cur = root_new(0, t->tid);
   es->path_adoptable = False;
}

/* A dump or zero restarts the thread's back-dating tree (backdating.c):
 * a call faked later covers only what happens from now on, while lines
 * loaded so far keep their load-time chains. Where such a call can still
 * come (the root is a function that was running when instrumentation
 * was switched on, or already found called once), the paths follow: the
 * running frames' chain is made again under a new root of the same
 * name, before the tree's restart takes its tag; the old nodes keep the
 * metrics still to come from lines loaded on them. Elsewhere nothing
 * changes, so dumps make no nodes. end: the thread's own frames (below
 * a running signal handler's). */
void cb_paths_new_root_at_dump(thread_info *t, Int end)
{
   exec_state *es = t->states[0];
   path_node *cur;
   Int i;
   if (!cb_clo.paths || !es->path_adoptable) return;
   cur = root_new(es->path_root->fn, t->tid);
   es->path_root = cur;
   for (i = 0; i < end; i++) {
      call_entry *e = &t->calls.entry[i];
      e->path_node = cur;
      if (e->jcc) cur = call_target(e->jcc, cur);
   }
   es->path_cur = cur;
}

/* The context ends (a handler returns): its last costs to its path. */
void cb_paths_end_context(exec_state *es)
{
   if (cb_clo.paths) charge(es, es == cb_cur.es ? cb_cur.bbcc : es->bbcc);
}

/* The function at the root turns out to have been called by jcc's
 * caller (a return from an empty call stack fakes that call): a new
 * root for the caller, the old one its child. */
static void adopt_root(exec_state *es, const JCC *jcc)
{
   path_node *old = es->path_root;
   path_node *root = root_new(fn_number(jcc->from), root_thread(old));
   old->fn = fn_number(jcc->to);
   old->parent = root->id;
   kid_keep(root, 0, kid_tag(old->fn), old);
   es->path_root = root;
   es->path_adoptable = True;
}

/* A frame is pushed for jcc and the memo does not know where it goes
 * from the current node (or the call is faked, or the current node an
 * unnamed root): as cb_paths_call (paths.h), the lookup out of line.
 * e->path_node is set. Before the back-dating tree's call (its root tag
 * follows an adopted root). */
void cb_paths_call_slow(call_entry *e, JCC *jcc, Bool faked)
{
   exec_state *es = cb_cur.es;
   charge(es, jcc->from);
   if (faked) {
      adopt_root(es, jcc);
      e->path_node = es->path_root;
      return;
   }
   es->path_cur = call_target(jcc, es->path_cur);
}

/* A frame is popped while the current node is an unnamed root: as
 * cb_paths_return (paths.h), naming it first. */
void cb_paths_return_slow(call_entry *e)
{
   exec_state *es = cb_cur.es;
   charge(es, cb_cur.bbcc);
   es->path_cur = e->path_node;
   __builtin_prefetch(es->path_cur, 1);
   e->path_node = NULL;
}

/* Back-dated metrics leaving a back-dating node on path's (backdating.c;
 * counters[i] is the event at position pos[i] of the costs, none where
 * negative): path's self cost, no more its parent's (to which they had
 * come from path's children). Between settles a node's sum may be short (modulo
 * 2^64); no file is written then. */
void cb_paths_move_backdated(void *path, void *parent_path, const Int *pos,
                             const ULong *counters, Int n)
{
   path_node *to = path, *from = parent_path;
   Int i;
   for (i = 0; i < n; i++) {
      if (!counters[i] || pos[i] < 0) continue;
      if (to) to->cost[pos[i]] += counters[i];
      if (from) from->cost[pos[i]] -= counters[i];
   }
}

/* With --objects=yes, a line's back-dated metrics at its eviction: from
 * its load-time path (which gets them from the line's back-dating node,
 * cb_paths_move_backdated) to the path's leaf of the object the loading
 * access touched. */
void cb_paths_object_cost(void *path, struct cb_obj *obj, event_id ac, UInt accost,
                          event_id sp, UInt sploss)
{
   path_node *p = path, *leaf;
   Int pa = cb_event_pos(ac), ps = cb_event_pos(sp);
   UInt fn;
   if (!p || !obj || (accost == 0 && sploss == 0)) return;
   fn = object_fn(obj);
   leaf = child_find(p->id, fn);
   if (!leaf) {
      leaf = node_alloc();
      leaf->parent = p->id;
      leaf->fn = fn;
      child_insert(leaf);
   }
   p->cost[pa] -= accost;
   leaf->cost[pa] += accost;
   p->cost[ps] -= sploss;
   leaf->cost[ps] += sploss;
}

/*------------------------------------------------------------*/
/*--- Dumps and zeroing                                    ---*/
/*------------------------------------------------------------*/

/* Before a dump (dump.c, for each thread written): the running counters'
 * growth to the current paths. */
void cb_paths_charge_thread(thread_info *t)
{
   Int s;
   for (s = 0; s <= t->states_sp; s++)
      if (t->states[s] && t->states[s]->path_cur)
         charge(t->states[s], t->states[s] == cb_cur.es ? cb_cur.bbcc : t->states[s]->bbcc);
}

/* Every node's thread (its root's), by id, when some differ (else
 * NULL): a walk up to a root or a node known already, then the same
 * walk again writing the thread down. */
static UInt *node_threads(void)
{
   UInt *tids, id, a, tid;
   if (!threads_mixed) return NULL;
   tids = VG_(calloc)("cb.paths.tids", n_nodes + 1, sizeof *tids);
   for (id = 1; id <= n_nodes; id++) {
      for (a = id; !tids[a] && !is_root(node_at(a)); a = node_at(a)->parent) ;
      tid = tids[a] ? tids[a] : root_thread(node_at(a));
      for (a = id; !tids[a]; a = node_at(a)->parent) {
         tids[a] = tid;
         if (is_root(node_at(a))) break;
      }
   }
   return tids;
}

/* Whether node id is thread only's (any node when only is NULL); tids
 * from node_threads. */
static Bool of_thread(UInt id, const UInt *tids, const thread_info *only)
{
   if (!only) return True;
   return (tids ? tids[id] : first_tid) == only->tid;
}

/* Zeroing: the costs so far are discarded, those to come count. */
void cb_paths_zero(thread_info *t)
{
   UInt id, *tids;
   Int s;
   if (!cb_clo.paths) return;
   for (s = 0; s <= t->states_sp; s++)
      if (t->states[s] && t->states[s]->path_snap)
         cb_copy_cost(t->states[s]->path_snap, t->states[s]->cost);
   tids = node_threads();
   for (id = 1; id <= n_nodes; id++)
      if (of_thread(id, tids, t)) cb_zero_cost(node_at(id)->cost);
   if (tids) VG_(free)(tids);
}

/* Function names of one file part: by fn number the id written with the
 * name at its first use (0: none yet). */
typedef struct { UInt *id_of_fn; UInt next_id; } name_ids;
/* While a part is written: a bit per node id, set once its line is. */
static UChar *written;

static Bool is_written(UInt id) { return (written[id >> 3] >> (id & 7)) & 1; }

static UInt function_id(cb_outfile *f, name_ids *ids, const path_node *n)
{
   HChar name[4096];
   const fn_block *b;
   UInt rec, id = ids->id_of_fn[n->fn];
   if (id) return id;
   id = ids->id_of_fn[n->fn] = ++ids->next_id;
   if (!n->fn) {
      cb_out_printf(f, "fn: %u \t(unknown)\n", id);
      return id;
   }
   b = fn_block_of(n->fn, &rec);
   if (b->object) {
      cb_out_printf(f, "object: %u ", id);
      cb_obj_write_frame(f, "", b->who);
   } else {
      const context *cxt = b->who;
      cb_context_name(cxt, rec, name, sizeof name);
      cb_out_printf(f, "fn: %u %s\t", id, cxt->fn[0]->file->name);
      cb_out_str(f, name);
      cb_out_str(f, "\n");
   }
   return id;
}

/* root: <id> <thread> <fn> <costs> or node: <id> <parent id> <fn>
 * <costs>; trailing zero events left out as in the profile (all of them
 * for a node written only as a parent). Its cost is then written: zero
 * for the next part. */
static void write_node(cb_outfile *f, name_ids *ids, path_node *n, ULong *total)
{
   UInt fn = function_id(f, ids, n);
   Int e, last = cb_n_events;
   cb_out_str(f, is_root(n) ? "root: " : "node: ");
   cb_out_u64(f, n->id);
   cb_out_str(f, " ");
   cb_out_u64(f, is_root(n) ? root_thread(n) : n->parent);
   cb_out_str(f, " ");
   cb_out_u64(f, fn);
   while (last > 0 && n->cost[last - 1] == 0) last--;
   for (e = 0; e < last; e++) {
      cb_out_str(f, " ");
      cb_out_u64(f, n->cost[e]);
   }
   cb_out_str(f, "\n");
   cb_add_cost(total, n->cost);
   cb_zero_cost(n->cost);
   written[n->id >> 3] |= 1 << (n->id & 7);
}

/* n's line, after those of its ancestors not written in this part yet
 * (a reader meets every parent before its children). */
static void write_with_ancestors(cb_outfile *f, name_ids *ids, path_node *n, ULong *total)
{
   static UInt *stack;
   static UInt stack_size;
   UInt depth = 0, id;
   for (id = n->id; !is_written(id); id = node_at(id)->parent) {
      if (depth == stack_size) {
         UInt size = stack_size ? 2 * stack_size : 256;
         stack = VG_(realloc)("cb.paths.stack", stack, size * sizeof *stack);
         stack_size = size;
      }
      stack[depth++] = id;
      if (is_root(node_at(id))) break;
   }
   while (depth > 0) write_node(f, ids, node_at(stack[--depth]), total);
}

static void write_header(cb_outfile *f, Int part, thread_info *only, const HChar *trigger,
                         Bool appending)
{
   Int i;
   if (!appending) {
      cb_out_str(f, "# callgrind-bd paths: costs per full call path (--paths=yes)\n"
                    "version: 2\ncreator: callgrind-bd-" CB_VERSION "\n");
      cb_out_printf(f, "pid: %d\n", VG_(getpid)());
      cb_write_cmd_line(f);
   }
   cb_out_printf(f, "\npart: %d\n", part);
   if (only) cb_out_printf(f, "thread: %u\n", only->tid);
   cb_out_printf(f, "desc: Trigger: %s\n", trigger ? trigger : "Program termination");
   cb_out_str(f, "events:");
   for (i = 0; i < cb_n_events; i++) { cb_out_str(f, " "); cb_out_str(f, cb_ev_name[cb_ev_at[i]]); }
   cb_out_str(f, "\n");
}

/* Beside the profile file profile_name (a part, a thread's file): the
 * paths of its thread (only) or of all, then they start from zero. */
void cb_paths_dump(const HChar *profile_name, Int part, thread_info *only,
                   const HChar *trigger, Bool appending)
{
   HChar name[VG_(strlen)(profile_name) + 8];
   cb_outfile *f;
   name_ids *ids;
   ULong total[cb_n_events];
   SysRes res;
   UInt id, *tids;
   Int e, i;

   if (!cb_clo.paths) return;
   VG_(sprintf)(name, "%s.paths", profile_name);
   res = appending ? VG_(open)(name, VKI_O_WRONLY | VKI_O_APPEND, 0)
                   : VG_(open)(name, VKI_O_WRONLY | VKI_O_CREAT | VKI_O_TRUNC,
                               VKI_S_IRUSR | VKI_S_IWUSR);
   if (sr_isError(res)) {
      VG_(message)(Vg_UserMsg, "callgrind-bd: cannot create paths file '%s': %s\n", name,
                   cb_open_error_text(sr_Err(res)));
      return;
   }
   f = CB_MALLOC("cb.paths.out", sizeof *f);
   ids = CB_MALLOC("cb.paths.ids", sizeof *ids);
   ids->id_of_fn = VG_(calloc)("cb.paths.fnids", n_fns + 1, sizeof *ids->id_of_fn);
   ids->next_id = 0;
   cb_out_start(f, sr_Res(res), name, "paths file");
   written = VG_(calloc)("cb.paths.written", n_nodes / 8 + 1, 1);
   write_header(f, part, only, trigger, appending);
   cb_zero_cost(total);
   tids = node_threads();
   for (id = 1; id <= n_nodes; id++) {
      path_node *n = node_at(id);
      if (of_thread(id, tids, only) && !is_written(id) && !cb_is_zero_cost(n->cost))
         write_with_ancestors(f, ids, n, total);
   }
   if (tids) VG_(free)(tids);
   cb_out_str(f, "totals:");
   e = cb_n_events;
   while (e > 1 && total[e - 1] == 0) e--;
   for (i = 0; i < e; i++) { cb_out_str(f, " "); cb_out_u64(f, total[i]); }
   cb_out_str(f, "\n");
   cb_out_finish(f);
   VG_(free)(ids->id_of_fn);
   VG_(free)(written);
   CB_FREE(ids);
   CB_FREE(f);
}

void cb_paths_print_stats(void)
{
   if (cb_clo.paths)
      VG_(dmsg)("Call paths:        %u nodes, %lu aliases (recursions)\n", n_nodes, n_aliases);
}
