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
 * nothing more.
 *
 * Nodes are never freed: their number is that of the distinct paths,
 * counted by --max-memory ("call paths"). A dump writes every node with
 * a cost since the last dump, then zeroes them, like the profile.
 *
 * Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
 */
#include "global.h"

#define KIDS 4

struct path_node {
   path_node *parent;         /* NULL for a context's root */
   context   *cxt;            /* the function; NULL: a root not named yet */
   UInt       rec;            /* its recursion level index (BBCC rec_index) */
   UInt       tid;            /* the thread whose context it is in */
   /* where the first KIDS calls from here go (most paths make few),
    * in the node the call starts from: no lookup elsewhere */
   context   *kid_cxt[KIDS];
   path_node *kid_to[KIDS];
   UInt       kid_rec[KIDS];
   struct path_link *hint;    /* the further call found last */
   UInt       name_id;        /* in the file being written, if written_in */
   UInt       written_in;     /*   is that file's number (write_number) */
   ULong      cost[0];        /* self cost of the path, cb_n_events long */
};

/* (parent, function) -> the node a call from parent's path goes to: a
 * child, or the ancestor of that name (a recursion). Open addressing,
 * the entries inline: a lookup is mostly one host cache line. */
typedef struct path_link {
   path_node *parent;         /* NULL: a free entry */
   context   *cxt;
   path_node *to;
   UInt       rec;
} path_link;

static path_link *links;
static UWord link_bits, n_links;

static path_node **nodes;      /* every node, for the dump and zeroing */
static UWord n_nodes, nodes_size;

/*------------------------------------------------------------*/
/*--- The tree                                             ---*/
/*------------------------------------------------------------*/

static UWord link_slot(const path_node *parent, const context *cxt, UInt rec)
{
   UWord h = ((UWord)parent >> 4) * 0x9E3779B97F4A7C15ULL
           ^ ((UWord)cxt >> 3) * 0xC2B2AE3D27D4EB4FULL ^ rec;
   return (h * 0x9E3779B97F4A7C15ULL) >> (64 - link_bits);
}

/* The entry of (parent, cxt, rec), or the free one where it would go. */
static path_link *link_find(const path_node *parent, const context *cxt, UInt rec)
{
   UWord mask = (1UL << link_bits) - 1, s = link_slot(parent, cxt, rec);
   for (;; s = (s + 1) & mask) {
      path_link *l = &links[s];
      if (!l->parent || (l->parent == parent && l->cxt == cxt && l->rec == rec))
         return l;
   }
}

/* At most 3/4 of the entries used: a lookup probes few. */
static Bool links_full(void)
{
   return 4 * (n_links + 1) > 3 * (1UL << link_bits);
}

/* Twice the entries (they move: a node's hint is dropped). */
static void links_grow(void)
{
   UWord old_size = links ? 1UL << link_bits : 0, i;
   path_link *old = links;
   link_bits = links ? link_bits + 1 : 12;
   links = cb_mem_alloc(CB_MEM_PATHS, "cb.paths.links", (1UL << link_bits) * sizeof *links);
   VG_(memset)(links, 0, (1UL << link_bits) * sizeof *links);
   for (i = 0; i < old_size; i++)
      if (old[i].parent) *link_find(old[i].parent, old[i].cxt, old[i].rec) = old[i];
   for (i = 0; i < n_nodes; i++) nodes[i]->hint = NULL;
   if (old) cb_mem_free(CB_MEM_PATHS, old, old_size * sizeof *old);
}

/* Nodes are carved from chunks (never freed): no allocator header each. */
static path_node *node_alloc(void)
{
   static UChar *chunk;
   static SizeT left;
   SizeT bytes = sizeof(path_node) + cb_n_events * sizeof(ULong);
   path_node *n;
   if (left < bytes) {
      SizeT size = 256 * 1024;
      chunk = cb_mem_alloc(CB_MEM_PATHS, "cb.paths.nodes", size);
      left = size;
   }
   n = (path_node *)chunk;
   chunk += bytes;
   left -= bytes;
   VG_(memset)(n, 0, bytes);
   return n;
}

static path_node *node_new(path_node *parent, context *cxt, UInt rec, UInt tid)
{
   path_node *n = node_alloc();
   n->parent = parent;
   n->cxt = cxt;
   n->rec = rec;
   n->tid = tid;
   if (n_nodes == nodes_size) {
      UWord size = nodes_size ? 2 * nodes_size : 1024;
      nodes = cb_mem_realloc(CB_MEM_PATHS, "cb.paths.nodes", nodes,
                             nodes_size * sizeof *nodes, size * sizeof *nodes);
      nodes_size = size;
   }
   nodes[n_nodes++] = n;
   return n;
}

/* The node on parent's path of function (cxt, rec): parent itself or an
 * ancestor when the function is running already, else a child. */
static path_node *on_path(path_node *parent, context *cxt, UInt rec)
{
   path_node *a;
   for (a = parent; a; a = a->parent)
      if (a->cxt == cxt && a->rec == rec) return a;
   return node_new(parent, cxt, rec, parent->tid);
}

/* Where a call from parent's path to (cxt, rec) goes; made once per
 * pair, then found among parent's first KIDS callees or in the link
 * table (parent's hint: the entry found there last). */
static path_node *callee_node(path_node *parent, context *cxt, UInt rec)
{
   path_link *l = parent->hint;
   UInt k;
   for (k = 0; k < KIDS && parent->kid_cxt[k]; k++)
      if (parent->kid_cxt[k] == cxt && parent->kid_rec[k] == rec) return parent->kid_to[k];
   if (k < KIDS) {
      parent->kid_to[k] = on_path(parent, cxt, rec);
      parent->kid_cxt[k] = cxt;
      parent->kid_rec[k] = rec;
      return parent->kid_to[k];
   }
   if (l && l->cxt == cxt && l->rec == rec) return l->to;
   if (!links || links_full()) links_grow();
   l = link_find(parent, cxt, rec);
   if (!l->parent) {
      path_node *to = on_path(parent, cxt, rec);   /* may not grow links */
      l->parent = parent;
      l->cxt = cxt;
      l->rec = rec;
      l->to = to;
      n_links++;
   }
   parent->hint = l;
   return l->to;
}

/* Where jcc's call from parent's path goes. An arc is mostly taken from
 * the same path again (its caller runs in one context): the arc keeps
 * the last answer, which spares the link table's lookup, a host cache
 * miss in a large table (8% of a Python run's samples without). */
static path_node *call_target(JCC *jcc, path_node *parent)
{
   if (jcc->path_from != parent) {
      jcc->path_to = callee_node(parent, jcc->to->cxt, jcc->to->rec_index);
      jcc->path_from = parent;
   }
   return jcc->path_to;
}

/* A new root's link to the old root, its child now (adopt_root): the
 * new root has no other. */
static void callee_link_set(path_node *root, path_node *child)
{
   root->kid_cxt[0] = child->cxt;
   root->kid_rec[0] = child->rec;
   root->kid_to[0] = child;
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
   if (!n->cxt && running) {
      n->cxt = running->cxt;
      n->rec = running->rec_index;
   }
}

/* The running counter's growth since the last move, to the current node. */
static void charge(exec_state *es, const BBCC *running)
{
   path_node *n = es->path_cur;
   Int i;
   if (!n) return;
   name_root(n, running);
   for (i = 0; i < cb_n_events; i++) {
      n->cost[i] += es->cost[i] - es->path_snap[i];
      es->path_snap[i] = es->cost[i];
   }
}

/* A new execution context (a thread, a signal handler starting): a root
 * of its own, its running counter at zero. */
void cb_paths_new_context(exec_state *es, ThreadId tid)
{
   if (!cb_clo.paths) return;
   if (!es->path_snap) es->path_snap = cb_new_cost(CB_MEM_PATHS);
   cb_copy_cost(es->path_snap, es->cost);
   es->path_root = es->path_cur = node_new(NULL, NULL, 0, tid);
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
   es->path_root = es->path_cur = node_new(NULL, NULL, 0, t->tid);
   es->path_adoptable = True;
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
   cur = node_new(NULL, es->path_root->cxt, es->path_root->rec, t->tid);
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
   path_node *root = node_new(NULL, jcc->from->cxt, jcc->from->rec_index, old->tid);
   old->cxt = jcc->to->cxt;
   old->rec = jcc->to->rec_index;
   old->parent = root;
   callee_link_set(root, old);
   es->path_root = root;
   es->path_adoptable = True;
}

/* A frame is pushed: e remembers the node to go back to; jcc (NULL for
 * a skipped function, whose costs stay its caller's) moves the current
 * node. Before the back-dating tree's call (its root tag follows an
 * adopted root). */
void cb_paths_call(call_entry *e, JCC *jcc, Bool faked)
{
   exec_state *es = cb_cur.es;
   if (!cb_clo.paths) return;
   e->path_node = es->path_cur;
   if (!jcc) return;
   charge(es, jcc->from);
   if (faked) {
      adopt_root(es, jcc);
      e->path_node = es->path_root;
      return;
   }
   es->path_cur = call_target(jcc, es->path_cur);
}

/* A frame is popped: back to the node it remembers. */
void cb_paths_return(call_entry *e)
{
   exec_state *es = cb_cur.es;
   if (!cb_clo.paths || !e->path_node) return;
   charge(es, cb_cur.bbcc);
   es->path_cur = e->path_node;
   e->path_node = NULL;
}

/* Back-dated metrics leaving a back-dating node on path's (backdating.c):
 * path's self cost, no more its parent's (to which they had come from
 * path's children). Between settles a node's sum may be short (modulo
 * 2^64); no file is written then. */
void cb_paths_move_backdated(void *path, void *parent_path, event_id ev, ULong value)
{
   Int pos = cb_event_pos(ev);
   if (path) ((path_node *)path)->cost[pos] += value;
   if (parent_path) ((path_node *)parent_path)->cost[pos] -= value;
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

static Bool of_thread(const path_node *n, const thread_info *only)
{
   return !only || n->tid == only->tid;
}

/* Zeroing: the costs so far are discarded, those to come count. */
void cb_paths_zero(thread_info *t)
{
   UWord i;
   Int s;
   if (!cb_clo.paths) return;
   for (s = 0; s <= t->states_sp; s++)
      if (t->states[s] && t->states[s]->path_snap)
         cb_copy_cost(t->states[s]->path_snap, t->states[s]->cost);
   for (i = 0; i < n_nodes; i++)
      if (nodes[i]->tid == t->tid) cb_zero_cost(nodes[i]->cost);
}

/* Function names of one file: (context, level) -> id, written with the
 * name at its first use. */
typedef struct name_id { const context *cxt; UInt rec, id; struct name_id *next; } name_id;
#define NAME_SLOTS 4093
typedef struct { name_id *slot[NAME_SLOTS]; UInt next_id; } name_ids;
static UInt write_number;      /* of the file being written: 1, 2, ... */

static UInt function_id(cb_outfile *f, name_ids *ids, const path_node *n)
{
   UWord s = (((UWord)n->cxt >> 3) * 31 + n->rec) % NAME_SLOTS;
   name_id *e;
   HChar name[4096];
   for (e = ids->slot[s]; e; e = e->next)
      if (e->cxt == n->cxt && e->rec == n->rec) return e->id;
   e = CB_MALLOC("cb.paths.name", sizeof *e);
   e->cxt = n->cxt;
   e->rec = n->rec;
   e->id = ++ids->next_id;
   e->next = ids->slot[s];
   ids->slot[s] = e;
   if (n->cxt) {
      cb_context_name(n->cxt, n->rec, name, sizeof name);
      cb_out_printf(f, "fn: %u %s\t", e->id, n->cxt->fn[0]->file->name);
      cb_out_str(f, name);
      cb_out_str(f, "\n");
   } else {
      cb_out_printf(f, "fn: %u \t(unknown)\n", e->id);
   }
   return e->id;
}

/* Paths share their first frames: a node's id is looked up once per file. */
static UInt name_of(cb_outfile *f, name_ids *ids, path_node *n)
{
   if (n->written_in != write_number) {
      n->name_id = function_id(f, ids, n);
      n->written_in = write_number;
   }
   return n->name_id;
}

static void free_name_ids(name_ids *ids)
{
   UInt s;
   for (s = 0; s < NAME_SLOTS; s++) {
      name_id *e = ids->slot[s];
      while (e) { name_id *next = e->next; CB_FREE(e); e = next; }
   }
}

/* path: <thread> <id>;<id>;... <costs>, root first; trailing zero
 * events left out as in the profile. */
static void write_path(cb_outfile *f, name_ids *ids, path_node *n, ULong *total)
{
   path_node *a;
   UInt depth = 0, i;
   Int e, last = cb_n_events;
   for (a = n; a; a = a->parent) depth++;
   {
      UInt frames[depth];
      i = depth;
      for (a = n; a; a = a->parent) frames[--i] = name_of(f, ids, a);
      cb_out_str(f, "path: ");
      cb_out_u64(f, n->tid);
      for (i = 0; i < depth; i++) {
         cb_out_str(f, i ? ";" : " ");
         cb_out_u64(f, frames[i]);
      }
   }
   while (last > 1 && n->cost[last - 1] == 0) last--;
   for (e = 0; e < last; e++) {
      cb_out_str(f, " ");
      cb_out_u64(f, n->cost[e]);
   }
   cb_out_str(f, "\n");
   cb_add_cost(total, n->cost);
}

static void write_header(cb_outfile *f, Int part, thread_info *only, const HChar *trigger,
                         Bool appending)
{
   Int i;
   if (!appending) {
      cb_out_str(f, "# callgrind-bd paths: costs per full call path (--paths=yes)\n"
                    "version: 1\ncreator: callgrind-bd-" CB_VERSION "\n");
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
   UWord i;
   Int e;

   if (!cb_clo.paths) return;
   VG_(sprintf)(name, "%s.paths", profile_name);
   res = appending ? VG_(open)(name, VKI_O_WRONLY | VKI_O_APPEND, 0)
                   : VG_(open)(name, VKI_O_WRONLY | VKI_O_CREAT | VKI_O_TRUNC,
                               VKI_S_IRUSR | VKI_S_IWUSR);
   if (sr_isError(res)) {
      VG_(message)(Vg_UserMsg, "callgrind-bd: cannot open paths file '%s' for writing\n", name);
      return;
   }
   f = CB_MALLOC("cb.paths.out", sizeof *f);
   ids = CB_MALLOC("cb.paths.ids", sizeof *ids);
   VG_(memset)(ids, 0, sizeof *ids);
   cb_out_start(f, sr_Res(res), name, "paths file");
   write_number++;
   write_header(f, part, only, trigger, appending);
   cb_zero_cost(total);
   for (i = 0; i < n_nodes; i++) {
      path_node *n = nodes[i];
      if (!of_thread(n, only) || cb_is_zero_cost(n->cost)) continue;
      write_path(f, ids, n, total);
      cb_zero_cost(n->cost);
   }
   cb_out_str(f, "totals:");
   e = cb_n_events;
   while (e > 1 && total[e - 1] == 0) e--;
   for (i = 0; i < (UWord)e; i++) { cb_out_str(f, " "); cb_out_u64(f, total[i]); }
   cb_out_str(f, "\n");
   cb_out_finish(f);
   free_name_ids(ids);
   CB_FREE(ids);
   CB_FREE(f);
}

void cb_paths_print_stats(void)
{
   if (cb_clo.paths)
      VG_(dmsg)("Call paths:        %lu nodes, %lu links\n", n_nodes, n_links);
}
