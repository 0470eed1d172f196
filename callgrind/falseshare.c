/* callgrind-bd: --sharing=yes, the order-independent false sharing
 * estimate -- the run side: accesses, parallel segments, data names.
 *
 * The estimate itself is pure C (cachesim/sharing.c, which states the
 * model). This file feeds it:
 *   - every data access the cache simulator sees while collecting, with
 *     its thread and instruction address (cb_fs_access, from sim.c);
 *   - the ends of parallel segments. A segment ends
 *       . when a thread returns from a barrier (pthread_barrier_wait,
 *         GOMP_barrier, the implicit barrier of an OpenMP loop or
 *         sections construct, GOMP_parallel_end...): by then all threads
 *         have arrived, so whatever ran before belongs to the segment
 *         that ends. The other threads leave the same barrier later; their
 *         returns must not cut again (that would separate their work after
 *         the barrier from that of the first), so a return cuts only if
 *         no cut happened since the same thread entered the function;
 *       . when the master enters a parallel region (GOMP_parallel*): the
 *         serial code before it is not parallel with the region; and
 *         when it leaves it (the region's end joins the team). These
 *         fork/join cuts carry no transfer across them (sharing.h);
 *       . at a thread creation or a join that orders the whole segment
 *         before all that follows (the model decides: sh_thread_*,
 *         sharing.h): Valgrind reports creations and ends of threads;
 *         pthread_create's handle (pthread_t) is read at its return, to
 *         know which thread a pthread_join (and variants, recognised by
 *         name like the barriers) names; the edge applies at the join's
 *         return;
 *       . at the client request CALLGRIND_BD_SEGMENT_END
 *         (<valgrind/callgrind-bd.h>).
 *     Functions are recognised by name when their fn_node is made
 *     (cb_fs_fn_kind, fn.c), and seen by the call stack at their first
 *     entry and last exit (callstack.c).
 *   - the names of the data of lines that become shared, looked up when a
 *     second thread first touches the line within a segment (so the data
 *     is allocated), or for a line shared only across a barrier at the end
 *     of that segment; with --objects=yes as the objects profile names
 *     the objects.
 *
 * Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
 */
#include "global.h"
#include "pub_tool_aspacemgr.h"
#include "objects.h"
#include "objects_int.h"
#include "falseshare.h"
#include "sharing.h"

sh_model *cb_fs_model;

static UInt cuts;                /* segment ends asked for so far */

/* Per thread (by thread id): the value of `cuts` when it entered each
 * barrier function it is inside of (they nest: a barrier inside a
 * parallel region); what its pthread_create and pthread_join calls need
 * between entry and return; the thread's handle (pthread_t) as its
 * creator's pthread_create stored it, and which thread of the id it is
 * (ids are reused: a join of an earlier thread of the id must not be
 * taken for a join of the present one). */
#define FS_MAX_NEST 16
typedef struct {
   UInt depth;
   UInt at[FS_MAX_NEST];
   Addr create_out;              /* pthread_create's pthread_t *, at entry */
   ThreadId created;             /* the thread its clone made, or 0 */
   UInt create_depth, join_depth;     /* nested entries (aliases, variants) */
   UInt join_gen;                /* generation of the thread it names */
   ThreadId joinee;              /* the thread it names, or 0 */
   UWord handle;                 /* this thread's pthread_t, 0 if unknown */
   UInt gen;                     /* threads created with this id so far */
   Bool live;
} fs_thread;
static fs_thread *entries;       /* by thread id */
static UInt n_entries;

/*------------------------------------------------------------*/
/*--- Barrier functions                                    ---*/
/*------------------------------------------------------------*/

/* First match wins, so the _start variants come before their patterns.
 * A name matches with or without a symbol version (name@@GLIBC_2.34). */
static const struct { const HChar *pattern; UInt kind; } barrier_fns[] = {
   { "pthread_barrier_wait",         FS_CUT_AT_EXIT },
   { "GOMP_barrier",                 FS_CUT_AT_EXIT },
   { "GOMP_barrier_cancel",          FS_CUT_AT_EXIT },
   { "GOMP_loop_end",                FS_CUT_AT_EXIT },
   { "GOMP_loop_end_cancel",         FS_CUT_AT_EXIT },
   { "GOMP_sections_end",            FS_CUT_AT_EXIT },
   { "GOMP_sections_end_cancel",     FS_CUT_AT_EXIT },
   /* A parallel region's start forks, its end (the team's barrier, after
    * which the master continues alone) joins: cuts without the transfer
    * of the thesis' equations (4), (5) (sharing.h). */
   { "GOMP_parallel_end",            FS_CUT_AT_EXIT | FS_FORK_JOIN },
   /* old ABI: GOMP_parallel*_start ... fn ... GOMP_parallel_end */
   { "GOMP_parallel_start",          FS_CUT_AT_ENTRY | FS_FORK_JOIN },
   { "GOMP_parallel_loop_*_start",   FS_CUT_AT_ENTRY | FS_FORK_JOIN },
   { "GOMP_parallel_sections_start", FS_CUT_AT_ENTRY | FS_FORK_JOIN },
   /* GCC >= 4.9: one call runs the whole region, its end barrier inside */
   { "GOMP_parallel",                FS_CUT_AT_ENTRY | FS_CUT_AT_EXIT | FS_FORK_JOIN },
   { "GOMP_parallel_loop_*",         FS_CUT_AT_ENTRY | FS_CUT_AT_EXIT | FS_FORK_JOIN },
   { "GOMP_parallel_sections",       FS_CUT_AT_ENTRY | FS_CUT_AT_EXIT | FS_FORK_JOIN },
   { "GOMP_parallel_reductions",     FS_CUT_AT_ENTRY | FS_CUT_AT_EXIT | FS_FORK_JOIN },
   { "GOMP_teams_reg",               FS_CUT_AT_ENTRY | FS_CUT_AT_EXIT | FS_FORK_JOIN },
   /* Thread creation and join (glibc's names, versioned or internal): their
    * happens-before edges (cachesim/sharing.h, sh_thread_*). Valgrind
    * reports the creation itself; the join only by its call's return. */
   { "pthread_create",               FS_CREATE },
   { "__pthread_create_2_*",         FS_CREATE },
   { "*pthread_join",                FS_JOIN },
   { "*pthread_tryjoin_np",          FS_JOIN },
   { "*pthread_timedjoin_np*",       FS_JOIN },
   { "*pthread_clockjoin_np*",       FS_JOIN },
   { "__pthread_clockjoin_ex",       FS_JOIN },
};

UInt cb_fs_fn_kind(const HChar *name)
{
   HChar plain[128];
   const HChar *at = VG_(strchr)(name, '@');
   SizeT n = at ? (SizeT)(at - name) : VG_(strlen)(name);
   UInt i;

   if (!cb_clo.sharing || n >= sizeof plain) return 0;
   VG_(memcpy)(plain, name, n);
   plain[n] = 0;
   for (i = 0; i < sizeof barrier_fns / sizeof barrier_fns[0]; i++)
      if (VG_(string_match)(barrier_fns[i].pattern, plain)) return barrier_fns[i].kind;
   return 0;
}

static fs_thread *entries_of(ThreadId tid)
{
   if (tid >= n_entries) {
      UInt old = n_entries, n = n_entries ? n_entries : 16;
      while (n <= tid) n *= 2;
      entries = VG_(realloc)("cb.fs.entries", entries, n * sizeof(fs_thread));
      VG_(memset)(entries + old, 0, (n - old) * sizeof(fs_thread));
      n_entries = n;
   }
   return &entries[tid];
}

/*------------------------------------------------------------*/
/*--- Naming the data of shared lines                      ---*/
/*------------------------------------------------------------*/

/* What one probe of a line finds, before it is kept: most probes are
 * dropped (a line of one variable is probed 8 times), so nothing is
 * allocated for them. name points into buf or at a string that outlives
 * the probe. */
typedef struct {
   const HChar *group, *name, *file;
   UInt line;
   HChar buf[512];
   const HChar *buf_sym, *buf_obj;   /* what buf was made of (a line's
                                        probes mostly find one symbol) */
} fs_probe;

static void set_probe(fs_probe *p, const HChar *group, const HChar *name,
                      const HChar *file, UInt line)
{
   p->group = group;
   p->name = name;
   p->file = file;
   p->line = line;
}

/* As the objects profile names objects (objects.h): an allocation site, a
 * static variable, or a bucket. */
static void object_probe(Addr a, fs_probe *p)
{
   cb_block *b = cb_obj_lookup(a);
   const cb_obj *o = b ? b->obj : NULL;
   if (!o) { set_probe(p, "[other]", "[unknown]", NULL, 0); return; }
   set_probe(p, o->kind == OK_HEAP ? "[heap]" : o->kind == OK_STATIC ? "[static]" : "[other]",
             o->name, o->kind == OK_HEAP ? o->file : NULL, o->kind == OK_HEAP ? o->line : 0);
}

/* Without --objects=yes heap blocks are not tracked: a static variable by
 * its symbol, as the objects profile writes it, else a hint. */
static void symbol_probe(Addr a, fs_probe *p)
{
   DiEpoch ep = VG_(current_DiEpoch)();
   const HChar *sym, *objname = NULL;
   PtrdiffT off;
   if (VG_(get_datasym_and_offset)(ep, a, &sym, &off)) {
      const HChar *base;
      /* the ELF file as objects.c finds it: its section, else the file
       * mapped there */
      VG_(DebugInfo_sect_kind)(&objname, a);
      if (!objname || !*objname || VG_(strcmp)(objname, "???") == 0) {
         const NSegment *seg = VG_(am_find_nsegment)(a);
         objname = seg ? VG_(am_get_filename)(seg) : NULL;
      }
      if (sym != p->buf_sym || objname != p->buf_obj) {
         base = objname ? VG_(strrchr)(objname, '/') : NULL;
         VG_(snprintf)(p->buf, sizeof p->buf, "%s (%s)", sym,
                       base ? base + 1 : objname ? objname : "???");
         p->buf_sym = sym;
         p->buf_obj = objname;
      }
      set_probe(p, "[static]", p->buf, NULL, 0);
      return;
   }
   set_probe(p, "[other]", "[heap, stack or unknown: --objects=yes names them]", NULL, 0);
}

/* The lines of one array name the same data, and the reports compare
 * data by content (falseshare_report.c): one copy of each is kept (a
 * hash table, by content). */
static cb_fs_data **interned;
static UInt n_interned, interned_mask;

static Bool same_str(const HChar *a, const HChar *b)
{
   return a == b || (a && b && VG_(strcmp)(a, b) == 0);
}

static Bool same_data(const cb_fs_data *d, const cb_fs_data *e)
{
   return same_str(d->group, e->group) && same_str(d->name, e->name)
          && same_str(d->object, e->object) && same_str(d->file, e->file)
          && d->line == e->line;
}

static UInt str_hash(UInt h, const HChar *s)
{
   for (; s && *s; s++) h = h * 31 + (UChar)*s;
   return h * 31;
}

static UInt data_hash(const cb_fs_data *d)
{
   UInt h = str_hash(str_hash(str_hash(str_hash(d->line, d->group), d->name),
                              d->object), d->file);
   return (h ^ (h >> 15)) * 0x9E3779B1u;
}

/* The slot of data like d, or the empty slot where it goes. */
static UInt intern_slot(const cb_fs_data *d)
{
   UInt j = data_hash(d) & interned_mask;
   while (interned[j] && !same_data(interned[j], d)) j = (j + 1) & interned_mask;
   return j;
}

static void intern_grow(void)
{
   cb_fs_data **old = interned;
   UInt i, old_size = old ? interned_mask + 1 : 0;
   interned_mask = old ? interned_mask * 2 + 1 : 255;
   interned = CB_MALLOC("cb.fs.interned", (interned_mask + 1) * sizeof *interned);
   VG_(memset)(interned, 0, (interned_mask + 1) * sizeof *interned);
   for (i = 0; i < old_size; i++)
      if (old[i]) interned[intern_slot(old[i])] = old[i];
   if (old) VG_(free)(old);
}

/* The kept copy of data like d (its strings the caller's, for now). */
static cb_fs_data *intern_data(const cb_fs_data *d)
{
   UInt j;
   cb_fs_data *k;
   if (n_interned * 2 >= interned_mask) intern_grow();
   j = intern_slot(d);
   if (interned[j]) return interned[j];
   k = CB_MALLOC("cb.fs.data", sizeof *k);
   k->group = d->group;
   k->object = VG_(strdup)("cb.fs.name", d->object);
   k->name = d->name == d->object ? k->object : VG_(strdup)("cb.fs.name", d->name);
   k->file = d->file ? VG_(strdup)("cb.fs.file", d->file) : NULL;
   k->line = d->line;
   interned[j] = k;
   n_interned++;
   return k;
}

/* All the data a line holds, probed every 8 bytes: two neighbouring
 * variables in one line are the classic case. The first named one gives
 * the group and allocation position; the name lists up to three. */
static cb_fs_data *data_of_line(Addr a, UInt ls)
{
   cb_fs_data first = { NULL, NULL, NULL, NULL, 0 };
   fs_probe p;
   HChar names[600], first_name[sizeof p.buf];
   UInt n = 0;
   Addr probe;
   names[0] = 0;
   p.buf_sym = p.buf_obj = NULL;
   for (probe = a; probe < a + ls; probe += 8) {
      if (cb_clo.objects) object_probe(probe, &p); else symbol_probe(probe, &p);
      if (VG_(strcmp)(p.group, "[other]") == 0 && (first.group || probe + 8 < a + ls))
         continue;
      if (VG_(strstr)(names, p.name) == NULL && n < 3) {
         if (n) VG_(strncat)(names, " + ", sizeof names - VG_(strlen)(names) - 1);
         VG_(strncat)(names, p.name, sizeof names - VG_(strlen)(names) - 1);
         n++;
      }
      if (!first.group) {
         /* (p's strings outlive the probes, objects' and constants, but
          * for its buffer, which the next probe writes again) */
         if (p.name == p.buf) VG_(strcpy)(first_name, p.buf);
         first.group = p.group;
         first.object = p.name == p.buf ? first_name : p.name;
         first.file = p.file;
         first.line = p.line;
      }
   }
   first.name = n > 1 ? names : first.object;   /* object keeps the first */
   return intern_data(&first);
}

/* The model's namer: a second thread has just touched the line. */
static void *name_line(void *ctx, uint64_t addr)
{
   (void)ctx;
   return data_of_line((Addr)addr, sh_line_size(cb_fs_model));
}

/* Lines shared only across a barrier have not met the namer. */
static void name_fresh_lines(void)
{
   const UInt *fresh;
   UInt n = sh_fresh_shared(cb_fs_model, &fresh), i;
   UInt ls = sh_line_size(cb_fs_model);
   for (i = 0; i < n; i++) {
      const sh_line *l = sh_line_at(cb_fs_model, fresh[i]);
      if (!l->tag)
         sh_set_tag(cb_fs_model, fresh[i], data_of_line((Addr)(l->line * ls), ls));
   }
}

/*------------------------------------------------------------*/
/*--- Segments                                             ---*/
/*------------------------------------------------------------*/

void cb_fs_end_segment(void)
{
   cuts++;
   sh_end_segment(cb_fs_model);
   name_fresh_lines();
}

static void end_fork_join(void)
{
   cuts++;
   sh_end_fork_join(cb_fs_model);
   name_fresh_lines();
}

static void cut(const fn_node *fn)
{
   if (fn->sharing_cut & FS_FORK_JOIN) end_fork_join();
   else cb_fs_end_segment();
}

/*------------------------------------------------------------*/
/*--- Thread creation and join                             ---*/
/*------------------------------------------------------------*/

/* Valgrind's creation of a thread, in the parent's clone call: what the
 * parent did so far happens before all the child does. The parent's
 * last block is simulated first, to fall before the edge. */
void cb_fs_thread_created(ThreadId parent, ThreadId child)
{
   fs_thread *c;
   if (!cb_fs_model || child == VG_INVALID_THREADID) return;
   cb_sim_catch_up();
   c = entries_of(child);
   c->gen++;
   c->handle = 0;
   c->live = True;
   if (parent != VG_INVALID_THREADID) entries_of(parent)->created = child;
   /* not counted in `cuts`: the creator may be inside GOMP_parallel,
    * whose return must still cut (no other thread is in a barrier now) */
   if (sh_thread_created(cb_fs_model, parent == VG_INVALID_THREADID
                                      ? SH_NO_THREAD : parent, child))
      name_fresh_lines();
}

void cb_fs_thread_exit(ThreadId tid)
{
   if (!cb_fs_model) return;
   entries_of(tid)->live = False;
   sh_thread_exited(cb_fs_model, tid);
}

/* pthread_create(pthread_t *thread, ...): at entry where the handle goes;
 * at return the handle names the thread its clone made. */
static void create_entered(fs_thread *t)
{
   if (t->create_depth++ > 0) return;
   t->create_out = (Addr)cb_guest_int_arg(0);
   t->created = VG_INVALID_THREADID;
}

static void create_left(fs_thread *t)
{
   ThreadId child = t->created;
   Addr out = t->create_out;
   if (t->create_depth == 0 || --t->create_depth > 0) return;
   if (child == VG_INVALID_THREADID
       || !VG_(am_is_valid_for_client)(out, sizeof(UWord), VKI_PROT_READ))
      return;
   entries_of(child)->handle = *(const UWord *)out;   /* t may move */
}

/* pthread_join(pthread_t thread, ...) and variants: the thread the handle
 * names at entry (the newest of that handle: glibc reuses a finished
 * thread's descriptor) is the one whose work the joiner sees after the
 * return, if it has ended by then (a try or timed join may fail). */
static void join_entered(fs_thread *t)
{
   UWord handle;
   ThreadId j;
   if (t->join_depth++ > 0) return;
   handle = cb_guest_int_arg(0);
   t->joinee = VG_INVALID_THREADID;
   for (j = 1; j < n_entries; j++)
      if (handle != 0 && entries[j].handle == handle) {
         t->joinee = j;
         t->join_gen = entries[j].gen;
      }
}

static void join_left(fs_thread *t)
{
   ThreadId j = t->joinee;
   if (t->join_depth == 0 || --t->join_depth > 0 || j == VG_INVALID_THREADID)
      return;
   t->joinee = VG_INVALID_THREADID;
   if (entries[j].gen != t->join_gen || entries[j].live) return;
   if (sh_thread_joined(cb_fs_model, cb_cur.tid, j)) name_fresh_lines();
}

/*------------------------------------------------------------*/
/*--- Functions that synchronise                           ---*/
/*------------------------------------------------------------*/

void cb_fs_fn_entered(const fn_node *fn)
{
   fs_thread *e = entries_of(cb_cur.tid);
   if (fn->sharing_cut & FS_CREATE) { create_entered(e); return; }
   if (fn->sharing_cut & FS_JOIN) { join_entered(e); return; }
   if (fn->sharing_cut & FS_CUT_AT_ENTRY) cut(fn);
   if (e->depth < FS_MAX_NEST) e->at[e->depth] = cuts;
   e->depth++;
}

void cb_fs_fn_left(const fn_node *fn)
{
   fs_thread *e = entries_of(cb_cur.tid);
   UInt at = cuts;
   if (fn->sharing_cut & FS_CREATE) { create_left(e); return; }
   if (fn->sharing_cut & FS_JOIN) { join_left(e); return; }
   if (e->depth > 0) {
      e->depth--;
      if (e->depth < FS_MAX_NEST) at = e->at[e->depth];
   }
   if ((fn->sharing_cut & FS_CUT_AT_EXIT) && at == cuts) cut(fn);
}

/*------------------------------------------------------------*/
/*--- Start and end                                        ---*/
/*------------------------------------------------------------*/

void cb_fs_post_clo_init(void)
{
   UInt line_size = (UInt)cb_geom.d1.line_size;
   if (!cb_clo.sharing) return;
   if (line_size > 256) {        /* offsets in a line are kept in a byte */
      VG_(fmsg)("callgrind-bd: --sharing=yes needs a D1 line size of at most "
                "256 bytes (--D1 gives %u)\n", line_size);
      VG_(exit)(1);
   }
   cb_fs_model = sh_new(line_size);
   sh_set_namer(cb_fs_model, name_line, NULL);
}

/* -v: what the model's tables hold (perf/RESULTS-sharing.md). */
static void print_stats(void)
{
   sh_stats st = sh_get_stats(cb_fs_model);
   VG_(umsg)("False sharing model: %llu lines (%llu kB), %llu with counters "
             "(%llu kB and their arrays), history trie at most %llu nodes "
             "(%llu kB), %llu histories packed (at most %llu lines, %llu kB, "
             "%llu kB of it in records, at once), %llu replayed into counters; "
             "%llu counters at the end (%llu kB in arrays), %llu shared lines' "
             "results (%llu kB); %llu kB in all\n",
             (ULong)st.lines, (ULong)st.line_bytes / 1024, (ULong)st.fulls,
             (ULong)st.full_bytes / 1024, (ULong)st.peak_nodes,
             (ULong)st.node_bytes / 1024, (ULong)st.packed, (ULong)st.peak_packs,
             (ULong)st.peak_pack_bytes / 1024, (ULong)st.peak_pack_used / 1024,
             (ULong)st.replays, (ULong)st.counters, (ULong)st.counter_bytes / 1024,
             (ULong)st.results, (ULong)st.result_bytes / 1024,
             (ULong)sh_memory(cb_fs_model) / 1024);
   VG_(umsg)("False sharing model: packed records grew %llu times (%llu in "
             "place); %llu compactions moved %llu kB\n",
             (ULong)st.pack_grows, (ULong)st.pack_grows_in_place,
             (ULong)st.pack_compactions, (ULong)st.pack_compact_moved / 1024);
}

void cb_fs_fini(const HChar *out_base, const HChar *trigger)
{
   ThreadId tid = cb_cur.tid;
   if (!cb_fs_model) return;
   /* the objects' lookup looks at the current thread's stack, and at the
    * end of the run that thread is gone: no thread for the last naming */
   cb_cur.tid = VG_INVALID_THREADID;
   cb_fs_end_segment();
   cb_cur.tid = tid;
   cb_fs_write_reports(out_base, trigger);
   if (VG_(clo_verbosity) > 1) print_stats();
}
