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
 *         serial code before it is not parallel with the region;
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

/* Per thread: the value of `cuts` when it entered each barrier function
 * it is inside of (they nest: a barrier inside a parallel region). */
#define FS_MAX_NEST 16
typedef struct { UInt depth; UInt at[FS_MAX_NEST]; } entry_cuts;
static entry_cuts *entries;      /* by thread id */
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
   { "GOMP_parallel_end",            FS_CUT_AT_EXIT },
   /* old ABI: GOMP_parallel*_start ... fn ... GOMP_parallel_end */
   { "GOMP_parallel_start",          FS_CUT_AT_ENTRY },
   { "GOMP_parallel_loop_*_start",   FS_CUT_AT_ENTRY },
   { "GOMP_parallel_sections_start", FS_CUT_AT_ENTRY },
   /* GCC >= 4.9: one call runs the whole region, its end barrier inside */
   { "GOMP_parallel",                FS_CUT_AT_ENTRY | FS_CUT_AT_EXIT },
   { "GOMP_parallel_loop_*",         FS_CUT_AT_ENTRY | FS_CUT_AT_EXIT },
   { "GOMP_parallel_sections",       FS_CUT_AT_ENTRY | FS_CUT_AT_EXIT },
   { "GOMP_parallel_reductions",     FS_CUT_AT_ENTRY | FS_CUT_AT_EXIT },
   { "GOMP_teams_reg",               FS_CUT_AT_ENTRY | FS_CUT_AT_EXIT },
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

static entry_cuts *entries_of(ThreadId tid)
{
   if (tid >= n_entries) {
      UInt old = n_entries, n = n_entries ? n_entries : 16;
      while (n <= tid) n *= 2;
      entries = VG_(realloc)("cb.fs.entries", entries, n * sizeof(entry_cuts));
      VG_(memset)(entries + old, 0, (n - old) * sizeof(entry_cuts));
      n_entries = n;
   }
   return &entries[tid];
}

/*------------------------------------------------------------*/
/*--- Naming the data of shared lines                      ---*/
/*------------------------------------------------------------*/

static cb_fs_data *new_data(const HChar *group, const HChar *name,
                            const HChar *file, UInt line)
{
   cb_fs_data *d = CB_MALLOC("cb.fs.data", sizeof *d);
   d->group = group;
   d->name = VG_(strdup)("cb.fs.name", name);
   d->file = file ? VG_(strdup)("cb.fs.file", file) : NULL;
   d->line = line;
   return d;
}

/* As the objects profile names objects (objects.h): an allocation site, a
 * static variable, or a bucket. */
static cb_fs_data *object_data(Addr a)
{
   cb_block *b = cb_obj_lookup(a);
   const cb_obj *o = b ? b->obj : NULL;
   if (!o) return new_data("[other]", "[unknown]", NULL, 0);
   return new_data(o->kind == OK_HEAP ? "[heap]" : o->kind == OK_STATIC ? "[static]" : "[other]",
                   o->name, o->kind == OK_HEAP ? o->file : NULL,
                   o->kind == OK_HEAP ? o->line : 0);
}

/* Without --objects=yes heap blocks are not tracked: a static variable by
 * its symbol, as the objects profile writes it, else a hint. */
static cb_fs_data *symbol_data(Addr a)
{
   DiEpoch ep = VG_(current_DiEpoch)();
   const HChar *sym, *objname = NULL;
   PtrdiffT off;
   if (VG_(get_datasym_and_offset)(ep, a, &sym, &off)) {
      HChar buf[512];
      const HChar *base;
      /* the ELF file as objects.c finds it: its section, else the file
       * mapped there */
      VG_(DebugInfo_sect_kind)(&objname, a);
      if (!objname || !*objname || VG_(strcmp)(objname, "???") == 0) {
         const NSegment *seg = VG_(am_find_nsegment)(a);
         objname = seg ? VG_(am_get_filename)(seg) : NULL;
      }
      base = objname ? VG_(strrchr)(objname, '/') : NULL;
      VG_(snprintf)(buf, sizeof buf, "%s (%s)", sym,
                    base ? base + 1 : objname ? objname : "???");
      return new_data("[static]", buf, NULL, 0);
   }
   return new_data("[other]", "[heap, stack or unknown: --objects=yes names them]",
                   NULL, 0);
}

static void free_data(cb_fs_data *d)
{
   VG_(free)((HChar *)d->name);
   if (d->file) VG_(free)((HChar *)d->file);
   VG_(free)(d);
}

/* All the data a line holds, probed every 8 bytes: two neighbouring
 * variables in one line are the classic case. The first named one gives
 * the group and allocation position; the name lists up to three. */
static cb_fs_data *data_of_line(Addr a, UInt ls)
{
   cb_fs_data *first = NULL, *d;
   HChar names[600];
   UInt n = 0;
   Addr probe;
   names[0] = 0;
   for (probe = a; probe < a + ls; probe += 8) {
      d = cb_clo.objects ? object_data(probe) : symbol_data(probe);
      if (VG_(strcmp)(d->group, "[other]") == 0 && (first || probe + 8 < a + ls)) {
         free_data(d);
         continue;
      }
      if (VG_(strstr)(names, d->name) == NULL && n < 3) {
         if (n) VG_(strncat)(names, " + ", sizeof names - VG_(strlen)(names) - 1);
         VG_(strncat)(names, d->name, sizeof names - VG_(strlen)(names) - 1);
         n++;
      }
      if (!first) first = d; else free_data(d);
   }
   if (n > 1) {
      VG_(free)((HChar *)first->name);
      first->name = VG_(strdup)("cb.fs.name", names);
   }
   return first;
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

void cb_fs_fn_entered(const fn_node *fn)
{
   entry_cuts *e = entries_of(cb_cur.tid);
   if (fn->sharing_cut & FS_CUT_AT_ENTRY) cb_fs_end_segment();
   if (e->depth < FS_MAX_NEST) e->at[e->depth] = cuts;
   e->depth++;
}

void cb_fs_fn_left(const fn_node *fn)
{
   entry_cuts *e = entries_of(cb_cur.tid);
   UInt at = cuts;
   if (e->depth > 0) {
      e->depth--;
      if (e->depth < FS_MAX_NEST) at = e->at[e->depth];
   }
   if ((fn->sharing_cut & FS_CUT_AT_EXIT) && at == cuts) cb_fs_end_segment();
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

void cb_fs_fini(const HChar *out_base)
{
   ThreadId tid = cb_cur.tid;
   if (!cb_fs_model) return;
   /* the objects' lookup looks at the current thread's stack, and at the
    * end of the run that thread is gone: no thread for the last naming */
   cb_cur.tid = VG_INVALID_THREADID;
   cb_fs_end_segment();
   cb_cur.tid = tid;
   cb_fs_write_reports(out_base);
}
