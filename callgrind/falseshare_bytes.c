/* callgrind-bd: --sharing=yes -- which bytes of a shared line each thread
 * and function touched, for the text report (as perf c2c shows offsets
 * within a line): two threads on disjoint bytes are false sharing, on the
 * same bytes an exchange.
 *
 * The model keeps, per shared line, the bytes each (thread, code
 * position) loaded and stored in the segments where the line was shared
 * (sharing.h, sh_touch_at). Here the positions become functions, the
 * sets of one thread and function are merged, and each run of bytes read
 * the same way is printed with the member it holds when Valgrind's debug
 * info can say (VG_(get_data_description): a global variable with
 * --read-var-info=yes; heap blocks carry no type, and a stack variable's
 * frame is gone by the end of the run).
 *
 * Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
 */
#include "global.h"
#include "pub_tool_xarray.h"
#include "falseshare.h"

#define MAX_WHO 8                /* (thread, function) lines per cache line */
#define MAX_LINE 256             /* bytes: sharing.h's largest line */

/* What one thread's function did to the line's bytes: bit 0 read, bit 1
 * written, per byte. */
typedef struct {
   UInt tid;
   HChar fn[256];
   UChar kind[MAX_LINE];
   UInt first;                   /* its lowest byte, for the order */
} who;

static void fn_of(Addr pos, HChar *buf, SizeT size)
{
   const HChar *name;
   if (pos == SH_OTHER_POS) VG_(snprintf)(buf, size, "(other code)");
   else if (VG_(get_fnname)(VG_(current_DiEpoch)(), pos, &name))
      VG_(snprintf)(buf, size, "%s", name);
   else VG_(snprintf)(buf, size, "0x%lx", (UWord)pos);
}

static void add_set(UChar *kind, const uint64_t *set, UInt ls, UChar bit)
{
   UInt b;
   for (b = 0; b < ls; b++)
      if (set[b / 64] & (1ULL << (b % 64))) kind[b] |= bit;
}

static UInt lowest(const who *w, UInt ls)
{
   UInt b;
   for (b = 0; b < ls && !w->kind[b]; b++)
      ;
   return b;
}

/* The line's touches merged per (thread, function), at most max of
 * them; *more gets whether others were left out. */
static UInt gather(const sh_line *l, who *w, UInt max, UInt ls, Bool *more)
{
   UInt n = 0, k, i;
   *more = False;
   for (k = 0; k < sh_touches(l); k++) {
      uint64_t pos;
      uint32_t tid;
      const uint64_t *ld, *st;
      HChar fn[256];
      sh_touch_at(cb_fs_model, l, k, &pos, &tid, &ld, &st);
      fn_of((Addr)pos, fn, sizeof fn);
      for (i = 0; i < n && (w[i].tid != tid || VG_(strcmp)(w[i].fn, fn) != 0); i++)
         ;
      if (i == n && n == max) { *more = True; continue; }
      if (i == n) {
         VG_(memset)(&w[n], 0, sizeof w[n]);
         w[n].tid = tid;
         VG_(strcpy)(w[n].fn, fn);
         n++;
      }
      add_set(w[i].kind, ld, ls, 1);
      add_set(w[i].kind, st, ls, 2);
   }
   for (i = 0; i < n; i++) w[i].first = lowest(&w[i], ls);
   return n;
}

static Int cmp_who(const void *pa, const void *pb)
{
   const who *a = pa, *b = pb;
   if (a->tid != b->tid) return a->tid < b->tid ? -1 : 1;
   if (a->first != b->first) return a->first < b->first ? -1 : 1;
   return VG_(strcmp)(a->fn, b->fn);
}

/* The member of a global variable at a, from Valgrind's description
 * ("Location 0x.. is 8 bytes inside counters.of[1].value,"): the name
 * after "inside ", up to the comma; False if there is none. */
static Bool member_at(Addr a, HChar *buf, SizeT size)
{
   XArray *d1 = VG_(newXA)(VG_(malloc), "cb.fs.desc1", VG_(free), sizeof(HChar));
   XArray *d2 = VG_(newXA)(VG_(malloc), "cb.fs.desc2", VG_(free), sizeof(HChar));
   Bool ok = False;
   if (VG_(get_data_description)(d1, d2, VG_(current_DiEpoch)(), a)) {
      const HChar *text = VG_(indexXA)(d1, 0), *in = VG_(strstr)(text, " inside ");
      if (in) {
         SizeT n;
         in += 8;
         for (n = 0; in[n] && in[n] != ',' && n + 1 < size; n++) buf[n] = in[n];
         buf[n] = 0;
         ok = n > 0;
      }
   }
   VG_(deleteXA)(d1);
   VG_(deleteXA)(d2);
   return ok;
}

static const HChar *kind_name(UChar k)
{
   return k == 3 ? "read and written" : k == 2 ? "written" : "read";
}

/* One (thread, function): its runs of bytes touched the same way, a run
 * cut where the member the debug info names changes. */
static void text_who(const who *w, Addr line_addr, UInt ls, cb_outfile *out)
{
   UInt b = 0, e;
   const HChar *sep = "";
   HChar member[200], next[200];
   Bool named;
   cb_out_printf(out, "        thread %u, %s: ", w->tid, w->fn);
   while (b < ls) {
      if (!w->kind[b]) { b++; continue; }
      named = member_at(line_addr + b, member, sizeof member);
      for (e = b; e + 1 < ls && w->kind[e + 1] == w->kind[b]; e++) {
         Bool next_named = member_at(line_addr + e + 1, next, sizeof next);
         if (next_named != named || (named && VG_(strcmp)(next, member) != 0)) break;
      }
      if (e == b) cb_out_printf(out, "%sbyte %u %s", sep, b, kind_name(w->kind[b]));
      else cb_out_printf(out, "%sbytes %u-%u %s", sep, b, e, kind_name(w->kind[b]));
      if (named) cb_out_printf(out, " (%s)", member);
      sep = "; ";
      b = e + 1;
   }
   cb_out_str(out, "\n");
}

void cb_fs_text_bytes(const sh_line *l, cb_outfile *out)
{
   static who w[MAX_WHO];
   UInt ls = sh_line_size(cb_fs_model), n, i;
   Bool more;
   if (sh_touches(l) == 0) return;
   n = gather(l, w, MAX_WHO, ls, &more);
   VG_(ssort)(w, n, sizeof w[0], cmp_who);
   cb_out_str(out, "      bytes each thread's code touched while shared:\n");
   for (i = 0; i < n; i++) text_who(&w[i], (Addr)(l->line * ls), ls, out);
   if (more) cb_out_str(out, "        (and other threads or functions)\n");
}
