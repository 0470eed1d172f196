/* callgrind-bd: --sharing=yes -- the reports, written at the end of the
 * run for the whole run (dumps and zeroing do not touch the estimate).
 *
 *   <callgrind-out-file>.sharing.txt  the cache lines ranked by phi'
 *       (estimated false sharing events), each with its data, phi, theta,
 *       the time estimate phi' x --sharing-penalty and the code positions
 *       that touched it while it was shared; or why nothing was shared.
 *   <callgrind-out-file>.sharing  the same in the Callgrind format, for
 *       KCachegrind and callgrind_annotate: every shared line is a
 *       *function* "0x<address> <data>" in the ELF object "[heap]",
 *       "[static]" or "[other]" (as in the objects profile), its events
 *       FSe (phi'), FSw (phi), Xch (theta), FScyc (FSe x penalty) its self
 *       cost; the code that touched it *calls* it from its source line,
 *       the arc carrying the line's events in proportion to that code's
 *       share of the line's accesses (phi' is a property of the line, not
 *       of single accesses: the split only says who took part), rounded
 *       so that the calls add up to the line's self cost (apportion).
 *
 * Both go through the project's buffered writer (outfile.c), so a write
 * error is reported, naming the file.
 *
 * Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
 */
#include "global.h"
#include "falseshare.h"

#define TEXT_LINES 40            /* lines listed in the text report */

static cb_outfile out;

static void ostr(const HChar *s) { cb_out_str(&out, s); }

#define oprintf(...) cb_out_printf(&out, __VA_ARGS__)

static Bool open_report(const HChar *name, const HChar *what)
{
   SysRes res = VG_(open)(name, VKI_O_WRONLY | VKI_O_CREAT | VKI_O_TRUNC,
                          VKI_S_IRUSR | VKI_S_IWUSR);
   if (sr_isError(res)) {
      VG_(umsg)("callgrind-bd: cannot create %s '%s': %s\n", what, name,
                cb_open_error_text(sr_Err(res)));
      return False;
   }
   cb_out_start(&out, sr_Res(res), name, what);
   return True;
}

/*------------------------------------------------------------*/
/*--- Ranking                                              ---*/
/*------------------------------------------------------------*/

static ULong penalty(void) { return (ULong)cb_clo.sharing_penalty; }

static Int cmp_lines(const void *pa, const void *pb)
{
   const sh_line *a = *(const sh_line *const *)pa, *b = *(const sh_line *const *)pb;
   ULong fa = sh_phi_prime(a), fb = sh_phi_prime(b);
   if (fa != fb) return fa > fb ? -1 : 1;
   if (a->phi != b->phi) return a->phi > b->phi ? -1 : 1;
   return a->line < b->line ? -1 : a->line > b->line ? 1 : 0;
}

/* Lines with phi > 0, best first; *n gets their number. */
static const sh_line **ranked_lines(UInt *n)
{
   UInt all = sh_nlines(cb_fs_model), i, k = 0;
   const sh_line **v = CB_MALLOC("cb.fs.rank", (all ? all : 1) * sizeof *v);
   for (i = 0; i < all; i++) {
      const sh_line *l = sh_line_at(cb_fs_model, i);
      if (l->phi > 0) v[k++] = l;
   }
   VG_(ssort)(v, k, sizeof *v, cmp_lines);
   *n = k;
   return v;
}

static const cb_fs_data *data_of(const sh_line *l)
{
   static const cb_fs_data none = { "[other]", "[unknown]", "[unknown]", NULL, 0 };
   return l->tag ? (const cb_fs_data *)l->tag : &none;
}

/*------------------------------------------------------------*/
/*--- Data objects: the sum over their lines               ---*/
/*------------------------------------------------------------*/

/* A line is counted to the first object it holds (cb_fs_data.object): a
 * whole array's share of the estimate, spread over many lines, shows
 * there where no single line of it ranks high. */
typedef struct {
   const cb_fs_data *d;
   ULong prime, phi, theta;
   UInt lines;
} obj_sum;

static Int cmp_str(const HChar *a, const HChar *b)
{
   return VG_(strcmp)(a ? a : "", b ? b : "");
}

static Int cmp_object(const cb_fs_data *a, const cb_fs_data *b)
{
   Int c = cmp_str(a->group, b->group);
   if (c == 0) c = cmp_str(a->object, b->object);
   if (c == 0) c = cmp_str(a->file, b->file);
   if (c == 0 && a->line != b->line) c = a->line < b->line ? -1 : 1;
   return c;
}

static Int cmp_lines_by_object(const void *pa, const void *pb)
{
   const sh_line *a = *(const sh_line *const *)pa, *b = *(const sh_line *const *)pb;
   Int c = cmp_object(data_of(a), data_of(b));
   if (c != 0) return c;
   return a->line < b->line ? -1 : a->line > b->line ? 1 : 0;
}

static Int cmp_sums(const void *pa, const void *pb)
{
   const obj_sum *a = pa, *b = pb;
   if (a->prime != b->prime) return a->prime > b->prime ? -1 : 1;
   if (a->phi != b->phi) return a->phi > b->phi ? -1 : 1;
   return cmp_object(a->d, b->d);
}

/* The objects of lines v[0..n), best first; *nobj gets their number. */
static obj_sum *ranked_objects(const sh_line **v, UInt n, UInt *nobj)
{
   const sh_line **by = CB_MALLOC("cb.fs.byobj", (n ? n : 1) * sizeof *by);
   obj_sum *o = CB_MALLOC("cb.fs.objs", (n ? n : 1) * sizeof *o);
   UInt i, k = 0;
   VG_(memcpy)(by, v, n * sizeof *by);
   VG_(ssort)(by, n, sizeof *by, cmp_lines_by_object);
   for (i = 0; i < n; i++) {
      if (k == 0 || cmp_object(o[k - 1].d, data_of(by[i])) != 0)
         o[k++] = (obj_sum){ data_of(by[i]), 0, 0, 0, 0 };
      o[k - 1].prime += sh_phi_prime(by[i]);
      o[k - 1].phi += by[i]->phi;
      o[k - 1].theta += by[i]->theta;
      o[k - 1].lines++;
   }
   VG_(free)(by);
   VG_(ssort)(o, k, sizeof *o, cmp_sums);
   *nobj = k;
   return o;
}

/*------------------------------------------------------------*/
/*--- Code positions                                       ---*/
/*------------------------------------------------------------*/

/* A code position's names, copied: the debug info's lookups return
 * buffers that the next lookup may reuse (four positions of one line,
 * resolved in turn, printed with the last one's name). */
typedef struct {
   HChar obj[256], file[256], fn[256];
   UInt line;
} code_pos;

static void resolve(Addr a, code_pos *p)
{
   DiEpoch ep = VG_(current_DiEpoch)();
   const HChar *name, *dir;
   if (VG_(get_fnname)(ep, a, &name)) VG_(snprintf)(p->fn, sizeof p->fn, "%s", name);
   else VG_(snprintf)(p->fn, sizeof p->fn, "0x%lx", (UWord)a);
   if (VG_(get_filename_linenum)(ep, a, &name, &dir, &p->line)) {
      VG_(snprintf)(p->file, sizeof p->file, "%s", name);
   } else {
      VG_(strcpy)(p->file, "???");
      p->line = 0;
   }
   if (VG_(get_objname)(ep, a, &name)) VG_(snprintf)(p->obj, sizeof p->obj, "%s", name);
   else VG_(strcpy)(p->obj, "???");
}

static Bool same_source(const code_pos *a, const code_pos *b)
{
   return a->line == b->line && VG_(strcmp)(a->fn, b->fn) == 0
          && VG_(strcmp)(a->file, b->file) == 0 && VG_(strcmp)(a->obj, b->obj) == 0;
}

/*------------------------------------------------------------*/
/*--- The text report                                      ---*/
/*------------------------------------------------------------*/

static void totals(const sh_line **v, UInt n, ULong *phi, ULong *theta, ULong *prime)
{
   UInt i;
   *phi = *theta = *prime = 0;
   for (i = 0; i < n; i++) {
      *phi += v[i]->phi;
      *theta += v[i]->theta;
      *prime += sh_phi_prime(v[i]);
   }
}

static void write_cmd(void)
{
   Word i;
   if (VG_(args_the_exename)) ostr(VG_(args_the_exename));
   for (i = 0; i < VG_(sizeXA)(VG_(args_for_client)); i++) {
      ostr(" ");
      ostr(*(HChar **)VG_(indexXA)(VG_(args_for_client), i));
   }
}

static void text_nothing(UInt threads, UInt n)
{
   if (threads < 2)
      ostr("Nothing to share: the program ran a single thread.\n");
   else if (n == 0)
      ostr("Nothing to share: no cache line was accessed by two threads, one of\n"
           "them storing, within one parallel segment or across a barrier.\n");
}

/* The code positions that touched l: instructions of one source line
 * are one line of the report, the first of them printing their sum. */
static void text_positions(const sh_line *l)
{
   static code_pos p[SH_MAX_POS];
   UInt i, k;
   for (i = 0; i < l->npos; i++) resolve((Addr)l->pos[i].pos, &p[i]);
   for (i = 0; i < l->npos; i++) {
      ULong sum = 0;
      for (k = 0; k < i && !same_source(&p[i], &p[k]); k++)
         ;
      if (k < i) continue;
      for (k = i; k < l->npos; k++)
         if (same_source(&p[i], &p[k])) sum += l->pos[k].count;
      oprintf("      %12llu  %s (%s:%u)\n", sum, p[i].fn, p[i].file, p[i].line);
   }
   if (l->other_pos) oprintf("      %12llu  (other code)\n", (ULong)l->other_pos);
}

static void text_line(UInt rank, const sh_line *l)
{
   const cb_fs_data *d = data_of(l);
   UInt ls = sh_line_size(cb_fs_model);
   oprintf("%4u  %12llu %12llu %12llu %14llu  0x%llx  %s %s",
           rank, (ULong)sh_phi_prime(l), (ULong)l->phi, (ULong)l->theta,
           (ULong)sh_phi_prime(l) * penalty(), (ULong)l->line * ls, d->group, d->name);
   if (d->file) oprintf(" (allocated at %s:%u)", d->file, d->line);
   oprintf("\n      %llu loads, %llu stores in segments where it was shared\n",
           (ULong)l->loads, (ULong)l->stores);
   text_positions(l);
   cb_fs_text_bytes(l, &out);
}

#define TEXT_OBJECTS 20          /* objects listed in the text report */

static void text_objects(const obj_sum *o, UInt nobj)
{
   UInt i;
   ostr("Data objects by phi' (the sum over their lines; a line holding several\n"
        "objects counts to the first):\n\n");
   oprintf("%4s  %12s %12s %12s %14s %7s  %s\n", "rank", "phi'", "phi", "theta",
           "cycles", "lines", "data");
   for (i = 0; i < nobj && i < TEXT_OBJECTS; i++) {
      oprintf("%4u  %12llu %12llu %12llu %14llu %7u  %s %s", i + 1, o[i].prime,
              o[i].phi, o[i].theta, o[i].prime * penalty(), o[i].lines, o[i].d->group,
              o[i].d->object);
      if (o[i].d->file) oprintf(" (allocated at %s:%u)", o[i].d->file, o[i].d->line);
      ostr("\n");
   }
   if (nobj > i) oprintf("(%u more objects)\n", nobj - i);
   ostr("\n");
}

static void write_text(const HChar *name, const sh_line **v, UInt n,
                       const obj_sum *o, UInt nobj, const HChar *trigger)
{
   ULong phi, theta, prime;
   UInt i, shown = 0;
   if (!open_report(name, "sharing report")) return;
   totals(v, n, &phi, &theta, &prime);
   ostr("callgrind-bd false sharing estimate (--sharing=yes)\nCommand: ");
   write_cmd();
   if (trigger) oprintf("\nThe run so far, written at: %s", trigger);
   oprintf("\nThreads: %u, parallel segments: %u, cache line: %u bytes, "
           "penalty: %d cycles per event\n\n",
           sh_nthreads(cb_fs_model), sh_segments(cb_fs_model),
           sh_line_size(cb_fs_model), cb_clo.sharing_penalty);
   text_nothing(sh_nthreads(cb_fs_model), n);
   if (n == 0) { cb_out_finish(&out); return; }
   oprintf("Estimated false sharing events (phi'): %llu, about %llu cycles summed\n"
           "over the threads (phi' x %d); worst case (phi): %llu, likely data\n"
           "exchanges (theta): %llu, in %u shared cache lines.\n\n",
           prime, prime * penalty(), cb_clo.sharing_penalty, phi, theta, n);
   text_objects(o, nobj);
   ostr("Cache lines by phi' (phi' = max(phi - theta, 0), cycles = phi' x penalty),\n"
        "each with the code that touched it while shared (accesses):\n\n");
   oprintf("%4s  %12s %12s %12s %14s  %s\n", "rank", "phi'", "phi", "theta",
           "cycles", "line  data");
   for (i = 0; i < n && shown < TEXT_LINES; i++, shown++) text_line(i + 1, v[i]);
   if (n > shown) oprintf("\n(%u more lines in the Callgrind-format report)\n", n - shown);
   cb_out_finish(&out);
}

/*------------------------------------------------------------*/
/*--- The Callgrind-format report                          ---*/
/*------------------------------------------------------------*/

#define FS_EVENTS 4

static void costs_of(const sh_line *l, ULong *c)
{
   c[0] = sh_phi_prime(l);
   c[1] = l->phi;
   c[2] = l->theta;
   c[3] = c[0] * penalty();
}

static void ocosts(const ULong *c)
{
   Int e;
   for (e = 0; e < FS_EVENTS; e++) oprintf(" %llu", c[e]);
   ostr("\n");
}

static void line_fn_name(const sh_line *l, HChar *buf, SizeT size)
{
   VG_(snprintf)(buf, size, "0x%llx %s", (ULong)l->line * sh_line_size(cb_fs_model),
                 data_of(l)->name);
}

static void write_line_fn(const sh_line *l)
{
   const cb_fs_data *d = data_of(l);
   HChar fn[700];
   ULong c[FS_EVENTS];
   costs_of(l, c);
   line_fn_name(l, fn, sizeof fn);
   oprintf("\nob=%s\nfl=%s\nfn=%s\n%u", d->group, d->file ? d->file : "???", fn, d->line);
   ocosts(c);
}

/* The line's costs split over its callers in proportion to their
 * accesses, so that the calls add up to the line's self cost exactly
 * (largest remainder): the quotas' floors first, then one more to the
 * callers with the largest remainders, the earlier first on a tie.
 * w[k] are the callers' accesses, all their sum; share[k][e] the part
 * of event e. Exact while a remainder times a weight fits 64 bits
 * (counts below 2^32 per line); beyond, the floors come from doubles. */
#define FS_CALLERS (SH_MAX_POS + 1)
static void apportion(const ULong *cost, const ULong *w, UInt n, ULong all,
                      ULong share[][FS_EVENTS])
{
   ULong rem[FS_CALLERS], left;
   UInt k, j, best;
   Int e;
   for (e = 0; e < FS_EVENTS; e++) {
      ULong whole = cost[e] / all, part = cost[e] % all;
      left = cost[e];
      for (k = 0; k < n; k++) {
         if (w[k] == 0 || part <= ~0ULL / w[k]) {
            share[k][e] = whole * w[k] + part * w[k] / all;
            rem[k] = part * w[k] % all;
         } else {
            share[k][e] = whole * w[k] + (ULong)((double)part * w[k] / all);
            rem[k] = 0;
         }
         left -= share[k][e];
      }
      for (j = 0; j < left && j < n; j++) {
         best = 0;
         for (k = 1; k < n; k++)
            if (rem[k] > rem[best]) best = k;
         share[best][e]++;
         rem[best] = 0;
      }
   }
}

/* One caller of line l: code position p (or "(other code)" when p is
 * NULL, the accesses of the positions not kept), `calls` accesses, the
 * costs c. */
static void write_arc(const sh_line *l, const code_pos *p, ULong calls, const ULong *c)
{
   const cb_fs_data *d = data_of(l);
   HChar fn[700];
   UInt line = p ? p->line : 0;
   line_fn_name(l, fn, sizeof fn);
   if (p) oprintf("\nob=%s\nfl=%s\nfn=%s\n", p->obj, p->file, p->fn);
   else ostr("\nob=???\nfl=???\nfn=(other code)\n");
   oprintf("%u 0 0 0 0\n", line);
   oprintf("cob=%s\ncfi=%s\ncfn=%s\ncalls=%llu %u\n%u", d->group,
           d->file ? d->file : "???", fn, calls, d->line, line);
   ocosts(c);
}

/* The arcs into line l, adding up to its self cost. */
static void write_arcs(const sh_line *l)
{
   ULong w[FS_CALLERS], share[FS_CALLERS][FS_EVENTS], cost[FS_EVENTS], all = 0;
   UInt n = l->npos, k;
   code_pos p;
   for (k = 0; k < n; k++) w[k] = l->pos[k].count;
   if (l->other_pos) w[n++] = l->other_pos;
   for (k = 0; k < n; k++) all += w[k];
   if (all == 0) return;
   costs_of(l, cost);
   apportion(cost, w, n, all, share);
   for (k = 0; k < l->npos; k++) {
      resolve((Addr)l->pos[k].pos, &p);
      write_arc(l, &p, w[k], share[k]);
   }
   if (l->other_pos) write_arc(l, NULL, l->other_pos, share[n - 1]);
}

static void write_profile(const HChar *name, const sh_line **v, UInt n,
                          const HChar *trigger)
{
   ULong sum[FS_EVENTS] = { 0 }, c[FS_EVENTS];
   UInt i;
   Int e;
   if (!open_report(name, "sharing profile")) return;
   for (i = 0; i < n; i++) {
      costs_of(v[i], c);
      for (e = 0; e < FS_EVENTS; e++) sum[e] += c[e];
   }
   ostr("# callgrind format\nversion: 1\ncreator: callgrind-bd-" CB_VERSION " (false sharing)\n");
   oprintf("pid: %d\ncmd: ", VG_(getpid)());
   write_cmd();
   /* the profile's trigger: a run stopped by --max-memory or an execve
    * must not pass for a complete one */
   oprintf("\npart: 1\n\ndesc: Trigger: %s\n", trigger ? trigger : "Program termination");
   oprintf("desc: False sharing: %u threads, %u parallel segments, %u-byte lines, "
           "%d cycles per event\n\npositions: line\n",
           sh_nthreads(cb_fs_model), sh_segments(cb_fs_model),
           sh_line_size(cb_fs_model), cb_clo.sharing_penalty);
   ostr("event: FSe : false sharing events, estimate (phi' = phi - theta)\n"
        "event: FSw : false sharing events, worst case (phi)\n"
        "event: Xch : data exchanges, likely (theta)\n"
        "event: FScyc : false sharing cycles, estimate (FSe x penalty)\n"
        "events: FSe FSw Xch FScyc\nsummary:");
   ocosts(sum);
   for (i = 0; i < n; i++) {
      write_line_fn(v[i]);
      write_arcs(v[i]);
   }
   ostr("\ntotals:");
   ocosts(sum);
   cb_out_finish(&out);
}

/*------------------------------------------------------------*/
/*--- Both, and the summary on the terminal                ---*/
/*------------------------------------------------------------*/

/* The terminal's line: the total, the object holding most of it (its
 * share of phi', when there is any), the top line's data. */
static void summary_line(ULong prime, UInt n, const sh_line *top, const obj_sum *most,
                         const HChar *text)
{
   HChar share[40] = "";
   if (prime > 0)
      VG_(snprintf)(share, sizeof share, " (%llu.%llu%%)", most->prime * 100 / prime,
                    most->prime * 1000 / prime % 10);
   VG_(umsg)("False sharing: %llu events estimated (%llu cycles) in %u lines, "
             "most in %s %s%s, top line: %s; see %s\n", prime, prime * penalty(), n,
             most->d->group, most->d->object, share, data_of(top)->name, text);
}

void cb_fs_write_reports(const HChar *base, const HChar *trigger)
{
   HChar text[VG_(strlen)(base) + 16], prof[VG_(strlen)(base) + 16];
   ULong phi, theta, prime;
   UInt n;
   const sh_line **v = ranked_lines(&n);
   UInt nobj;
   obj_sum *o = ranked_objects(v, n, &nobj);
   VG_(sprintf)(text, "%s.sharing.txt", base);
   VG_(sprintf)(prof, "%s.sharing", base);
   write_text(text, v, n, o, nobj, trigger);
   write_profile(prof, v, n, trigger);
   totals(v, n, &phi, &theta, &prime);
   if (n == 0)
      VG_(umsg)("False sharing: nothing to share (%s)\n", text);
   else
      summary_line(prime, n, v[0], &o[0], text);
   VG_(free)(o);
   VG_(free)(v);
}
