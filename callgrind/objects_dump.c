/* callgrind-bd: data objects -- the objects profile and the exit report.
 *
 * Every dump of the profile writes, next to each profile file it writes,
 * <that file>.objects with the object costs of the same part (at exit:
 * <callgrind-out-file>.objects), in the Callgrind format so that
 * callgrind_annotate and KCachegrind browse it unchanged (what a part
 * holds: objects_parts.c):
 *   - each object is a function (ob=[heap], [static] or [other]) in a
 *     file of its own that is no path ("(heap objects)", "???"), so that
 *     annotators shortening paths below their working directory name it
 *     the same where it is defined and where it is called; a heap object
 *     is named "object allocated at <site> < <callers>". Its self cost is
 *     the object's total, at line 0 (not at the allocating source line,
 *     where it would read as the allocator's cost), or, with
 *     --object-granularity, one "line" per offset granule (line k+1 is
 *     bytes [k*g, (k+1)*g) of the blocks, file "(offset granules)");
 *   - the code that touched an object calls it: the arc from the accessing
 *     function, at the accessing source line, carries that code's costs on
 *     the object, and the arcs of the call chain above it carry them too,
 *     so inclusive costs of code functions are their costs on all data,
 *     through every call chain (back-dated AcCost/SpLoss included);
 *   - calls= is 1 on an arc into an object (the accesses are its Dr + Dw,
 *     not calls) and the main profile's call count of the arc between two
 *     functions (at least 1: calls=0 would make callgrind_annotate read
 *     the arc's cost as self cost);
 *   - cfi= is left out where the callee's file is the current one.
 *
 * Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
 */
#include "objects_int.h"
#include "pub_tool_xarray.h"
#include "pub_tool_oset.h"

static const event_id oe_event[OE_COUNT] = {
   EV_Dr, EV_Dw, EV_D1mr, EV_D1mw, EV_DLmr, EV_DLmw, EV_DLdmr, EV_DLdmw,
   EV_D2mr, EV_D2mw,
   EV_D1Ts, EV_D1Fs, EV_Inv,
   EV_AcCost1, EV_SpLoss1, EV_AcCost2, EV_SpLoss2, EV_AcCostL2, EV_SpLossL2,
};

/* The order they are written in: the profile's (the events of
 * --private-caches after all others), not the order of the cost arrays
 * (immediate events first, see objects_parts.c). */
static const Int oe_written[OE_COUNT] = {
   OE_Dr, OE_Dw, OE_D1mr, OE_D1mw, OE_D2mr, OE_D2mw, OE_DLmr, OE_DLmw, OE_DLdmr, OE_DLdmw,
   OE_AcCost1, OE_SpLoss1, OE_AcCostL2, OE_SpLossL2, OE_AcCost2, OE_SpLoss2,
   OE_D1Ts, OE_D1Fs, OE_Inv,
};

static HChar *objects_file;      /* the file being written */
static thread_info *part_thread;   /* only its cells, or NULL: all */

/*------------------------------------------------------------*/
/*--- Output with error reporting                          ---*/
/*------------------------------------------------------------*/

static cb_outfile out;           /* the objects profile being written */

static void ostr(const HChar *s) { cb_out_str(&out, s); }

/* "key=name\n": names may be longer than cb_out_printf's buffer. */
static void oname(const HChar *key, const HChar *name)
{
   ostr(key); ostr("="); ostr(name); ostr("\n");
}

/* Every event is written, trailing zeros included: callgrind_annotate's
 * source annotation warns when no annotated line has a value for some
 * event. */
static void ocosts(const ULong *c)
{
   Int i;
   for (i = 0; i < OE_COUNT; i++)
      if (cb_ev_pos[oe_event[oe_written[i]]] >= 0)
         cb_out_printf(&out, " %llu", c[oe_written[i]]);
   ostr("\n");
}

/*------------------------------------------------------------*/
/*--- Arcs: code -> object and code -> code                ---*/
/*------------------------------------------------------------*/

typedef struct {
   fn_node   *caller;
   file_node *file;        /* of the call site */
   UInt       line;
   fn_node   *callee_fn;   /* or ... */
   cb_obj    *callee_obj;
   ULong      calls;
   ULong      cost[OE_COUNT];
} obj_arc;

typedef struct arc_node { obj_arc a; struct arc_node *next; } arc_node;
static arc_node **arc_table;
static UWord arc_hash_size;     /* sized at exit from the number of cells */
static XArray *arcs;          /* of arc_node* */

static obj_arc *get_arc(fn_node *caller, file_node *file, UInt line, fn_node *cfn, cb_obj *cobj)
{
   UWord h = (((UWord)caller >> 4) * 0x9E3779B1UL + line * 7 + ((UWord)cfn >> 4)
              + ((UWord)cobj >> 4) * 31) % arc_hash_size;
   arc_node *n;
   for (n = arc_table[h]; n; n = n->next)
      if (n->a.caller == caller && n->a.file == file && n->a.line == line
          && n->a.callee_fn == cfn && n->a.callee_obj == cobj) return &n->a;
   n = CB_MALLOC("cb.obj.arc", sizeof *n);
   VG_(memset)(n, 0, sizeof *n);
   n->a.caller = caller; n->a.file = file; n->a.line = line;
   n->a.callee_fn = cfn; n->a.callee_obj = cobj;
   n->next = arc_table[h];
   arc_table[h] = n;
   VG_(addToXA)(arcs, &n);
   return &n->a;
}

static void add_to_arc(obj_arc *a, const ULong *c)
{
   Int e;
   for (e = 0; e < OE_COUNT; e++) a->cost[e] += c[e];
}

/* The accessing instruction's source position. */
static void access_pos(const cb_cell *c, file_node **file, UInt *line)
{
   const BB *bb = c->bbcc->bb;
   const instr_info *ii = &bb->instr[c->ii - bb->sim_instr];
   *file = ii->file ? ii->file : cb_obj_fn_of(c->bbcc)->file;
   *line = ii->line;
}

static void call_pos(const JCC *j, file_node **file, UInt *line)
{
   cb_site s = { 0, j->from->bb, j->jmp, cb_obj_fn_of(j->from) };
   fn_node *fn;
   cb_obj_site_pos(&s, &fn, line, file);
}

/* The arc into the object: from the accessing instruction; instruction
 * lines ([code]) from the function the chain entered, at line 0. */
static Bool first_arc(const cb_cell *c, const ULong *cost)
{
   file_node *file;
   UInt line;
   if (c->ii && c->bbcc) {
      access_pos(c, &file, &line);
      add_to_arc(get_arc(cb_obj_fn_of(c->bbcc), file, line, NULL, c->obj), cost);
      return True;
   }
   if (!c->ii && c->chain && c->chain->jcc) {
      fn_node *fn = cb_obj_fn_of(c->chain->jcc->to);
      add_to_arc(get_arc(fn, fn->file, 0, NULL, c->obj), cost);
      return True;
   }
   return False;
}

/* The arc into the object (the arcs above it carry the sums of the
 * chains: chain_arcs). Costs carried in from the part before reached the
 * arcs above then: here they are in the arc into the object only (the
 * profile has them in the accessing code's self cost now), unless they
 * are held again. */
static void arcs_of_cell(const cb_cell *c)
{
   ULong first[OE_COUNT];
   Int e;
   for (e = 0; e < OE_COUNT; e++)
      first[e] = c->cost[e] - (c->held ? cb_obj_carried_cost(c, e) : 0);
   first_arc(c, first);
}

/* Every chain's costs (its accesses' and those of the chains below it)
 * on the arc that entered it: children are visited before their parents
 * (which the sums then hold until the part starts again). */
static Bool is_zero(const ULong *c);

static void chain_arcs(void)
{
   cb_chain *ch;
   file_node *file;
   UInt line;
   Int e;
   /* the call count of an arc is its JCCs' (the main profile's part),
    * each counted once however many chains pass through it */
   OSet *counted = VG_(OSetWord_Create)(VG_(malloc), "cb.obj.counted", VG_(free));
   for (ch = cb_obj_chains; ch; ch = ch->next_all) {
      obj_arc *a;
      if (!ch->jcc || is_zero(ch->incl)) continue;
      if (part_thread && cb_obj_thread_roots && ch->tid != part_thread->tid) continue;
      call_pos(ch->jcc, &file, &line);
      a = get_arc(cb_obj_fn_of(ch->jcc->from), file, line, cb_obj_fn_of(ch->jcc->to), NULL);
      add_to_arc(a, ch->incl);
      if (!VG_(OSetWord_Contains)(counted, (UWord)ch->jcc)) {
         VG_(OSetWord_Insert)(counted, (UWord)ch->jcc);
         a->calls += ch->jcc->call_counter;
      }
      for (e = 0; e < OE_COUNT; e++) ch->parent->incl[e] += ch->incl[e];
   }
   VG_(OSetWord_Destroy)(counted);
}

static Int cmp_arc(const void *pa, const void *pb)
{
   const obj_arc *a = &(*(arc_node *const *)pa)->a, *b = &(*(arc_node *const *)pb)->a;
   if (a->caller != b->caller) return a->caller->number < b->caller->number ? -1 : 1;
   if (a->line != b->line) return a->line < b->line ? -1 : 1;
   return 0;
}

/*------------------------------------------------------------*/
/*--- Writing                                              ---*/
/*------------------------------------------------------------*/

static const HChar *obj_ob(const cb_obj *o)
{
   return cb_obj_kind_name(o);
}

/* With a histogram, the file names the granule size of the object (it may
 * have been coarsened to fit). */
static const HChar *obj_fl(const cb_obj *o)
{
   static HChar buf[64];
   if (cb_obj_hist && o->hist) {
      VG_(sprintf)(buf, "(offset granules of %u bytes)", o->gran_bytes);
      return buf;
   }
   /* no source position: the name says where the object is; "???"
    * keeps annotators from reading the ELF file */
   return o->kind == OK_HEAP ? "(heap objects)" : "???";
}

static UInt obj_first_line(const cb_obj *o)
{
   return (cb_obj_hist && o->hist) ? 1 : 0;
}

/* "key=<object's name>\n": a heap object's name says what it is. */
static void obj_name(const HChar *key, const cb_obj *o)
{
   ostr(key);
   ostr(o->kind == OK_HEAP ? "=object allocated at " : "=");
   ostr(o->name);
   ostr("\n");
}

/* The part's self cost of an object: its cells' costs but those held
 * for the next part. */
static void sum_object(cb_obj *o)
{
   const cb_cell *c;
   Int e;
   VG_(memset)(o->total, 0, sizeof o->total);
   for (c = o->cells; c; c = c->next_of_obj)
      if (!c->arcs_only && cb_obj_in_part(c, part_thread))
         for (e = 0; e < OE_COUNT; e++) o->total[e] += c->cost[e] - cb_obj_held_cost(c, e);
}

static Bool is_zero(const ULong *c)
{
   Int e;
   for (e = 0; e < OE_COUNT; e++) if (c[e]) return False;
   return True;
}

static void write_object(const cb_obj *o)
{
   UInt g;
   oname("ob", obj_ob(o));
   oname("fl", obj_fl(o));
   obj_name("fn", o);
   if (!(cb_obj_hist && o->hist)) {
      cb_out_printf(&out, "%u", obj_first_line(o));
      ocosts(o->total);
      return;
   }
   for (g = 0; g < o->hist_n; g++) {
      const ULong *c = &o->hist[(SizeT)g * OE_COUNT];
      if (is_zero(c)) continue;
      cb_out_printf(&out, "%u", g + 1);
      ocosts(c);
   }
}

/* The callee's file, unless it is the current one (cl-format: cfi= is
 * needed only for another file; annotators then take the caller's name
 * of the file, which they may have shortened). */
static void callee_file(const HChar *callee, const HChar *current)
{
   if (VG_(strcmp)(callee, current) != 0) oname("cfi", callee);
}

static void write_arc(const obj_arc *a, const HChar *current_file)
{
   if (a->callee_obj) {
      oname("cob", obj_ob(a->callee_obj));
      callee_file(obj_fl(a->callee_obj), current_file);
      obj_name("cfn", a->callee_obj);
      cb_out_printf(&out, "calls=1 %u\n", obj_first_line(a->callee_obj));
   } else {
      oname("cob", a->callee_fn->file->obj->name);
      callee_file(a->callee_fn->file->name, current_file);
      oname("cfn", a->callee_fn->name);
      cb_out_printf(&out, "calls=%llu 0\n", a->calls ? a->calls : 1);
   }
   cb_out_printf(&out, "%u", a->line);
   ocosts(a->cost);
}

static void write_code_functions(void)
{
   Word i, n;
   fn_node *cur = NULL;
   VG_(setCmpFnXA)(arcs, cmp_arc);
   VG_(sortXA)(arcs);
   n = VG_(sizeXA)(arcs);
   for (i = 0; i < n; i++) {
      const obj_arc *a = &(*(arc_node **)VG_(indexXA)(arcs, i))->a;
      if (is_zero(a->cost)) continue;
      if (a->caller != cur) {
         ULong zero[OE_COUNT] = { 0 };
         cur = a->caller;
         ostr("\n");
         oname("ob", cur->file->obj->name);
         oname("fl", cur->file->name);
         oname("fn", cur->name);
         /* code has no self cost here; one zero line gives its file a
          * line to annotate (else callgrind_annotate --inclusive=yes
          * warns about a chosen file without any cost line) */
         cb_out_printf(&out, "%u", a->file == cur->file ? a->line : 0);
         ocosts(zero);
      }
      if (a->file != cur->file) oname("fi", a->file->name);
      write_arc(a, a->file->name);
      if (a->file != cur->file) oname("fe", cur->file->name);
   }
}

static void write_header(const ULong *total, const HChar *trigger, Int part, Bool appending)
{
   Int e;
   Word i;
   if (!appending) {
      ostr("# callgrind format\nversion: 1\ncreator: callgrind-bd-" CB_VERSION " (data objects)\n");
      cb_out_printf(&out, "pid: %d\ncmd: ", VG_(getpid)());
      if (VG_(args_the_exename)) { ostr(" "); ostr(VG_(args_the_exename)); }
      for (i = 0; i < VG_(sizeXA)(VG_(args_for_client)); i++) {
         ostr(" ");
         ostr(*(HChar **)VG_(indexXA)(VG_(args_for_client), i));
      }
      ostr("\n");
   }
   cb_out_printf(&out, "\npart: %d\n", part);
   if (part_thread) cb_out_printf(&out, "thread: %d\n", (Int)part_thread->tid);
   ostr("\n");
   cb_out_printf(&out, "desc: Data objects: %u objects, %llu call chains, %llu cells\n",
           cb_obj_count_objs, cb_obj_n_chains, cb_obj_n_cells);
   if (cb_obj_hist) cb_out_printf(&out, "desc: Data objects: %llu cell-chain pairs\n", cb_obj_n_pairs);
   if (cb_obj_hist)
      cb_out_printf(&out, "desc: Object granularity: %d bytes\n", cb_clo.object_granularity);
   cb_out_printf(&out, "desc: Object callers: %d\n", cb_clo.object_callers);
   ostr("desc: Trigger: ");
   ostr(trigger ? trigger : "Program termination");
   ostr("\n\npositions: line\n");
   cb_write_event_names(oe_event, OE_COUNT, ostr);
   ostr("events:");
   for (e = 0; e < OE_COUNT; e++)
      if (cb_ev_pos[oe_event[oe_written[e]]] >= 0) {
         ostr(" ");
         ostr(cb_ev_name[oe_event[oe_written[e]]]);
      }
   ostr("\nsummary:");
   ocosts(total);
   ostr("\n");
}

static void program_total(ULong *total)
{
   cb_obj *o;
   Int e;
   VG_(memset)(total, 0, OE_COUNT * sizeof(ULong));
   for (o = cb_obj_list; o; o = o->next_all) {
      sum_object(o);
      for (e = 0; e < OE_COUNT; e++) total[e] += o->total[e];
   }
}

static void new_arc_table(void)
{
   arc_hash_size = cb_obj_n_cells < 16381 ? 16381 : (UWord)cb_obj_n_cells | 1;
   arc_table = CB_MALLOC("cb.obj.arcs", arc_hash_size * sizeof *arc_table);
   VG_(memset)(arc_table, 0, arc_hash_size * sizeof *arc_table);
}

/* After a part: its arcs go. */
static void free_arcs(void)
{
   Word i;
   for (i = 0; i < VG_(sizeXA)(arcs); i++) CB_FREE(*(arc_node **)VG_(indexXA)(arcs, i));
   VG_(dropTailXA)(arcs, VG_(sizeXA)(arcs));
   CB_FREE(arc_table);
   arc_table = NULL;
}

/* A new file, or with --combine-dumps=yes the next part appended to the
 * file of the first one (*appending says which it became). */
static Bool open_objects_file(Bool *appending)
{
   SysRes res;
   if (*appending) {
      res = VG_(open)(objects_file, VKI_O_WRONLY | VKI_O_APPEND, 0);
      if (!sr_isError(res)) {
         cb_out_start(&out, sr_Res(res), objects_file, "objects profile");
         return True;
      }
      *appending = False;
   }
   res = VG_(open)(objects_file, VKI_O_WRONLY | VKI_O_CREAT | VKI_O_TRUNC,
                   VKI_S_IRUSR | VKI_S_IWUSR);
   if (sr_isError(res)) {
      VG_(message)(Vg_UserMsg, "callgrind-bd: cannot create objects profile '%s': %s\n",
                   objects_file, cb_open_error_text(sr_Err(res)));
      return False;
   }
   cb_out_start(&out, sr_Res(res), objects_file, "objects profile");
   return True;
}

static void write_objects_file(const HChar *trigger, Int part, Bool appending)
{
   ULong total[OE_COUNT];
   cb_obj *o;
   const cb_cell *c;
   Int e;

   cb_obj_hist_without_held();
   program_total(total);
   new_arc_table();
   if (!open_objects_file(&appending)) return;
   write_header(total, trigger, part, appending);
   for (o = cb_obj_list; o; o = o->next_all) {
      for (c = o->cells; c; c = c->next_of_obj)
         if (cb_obj_in_part(c, part_thread)) arcs_of_cell(c);
      if (!is_zero(o->total)) write_object(o);
      for (e = 0; e < OE_COUNT; e++) o->written[e] += o->total[e];
   }
   chain_arcs();
   write_code_functions();
   ostr("totals:");
   ocosts(total);
   cb_out_finish(&out);
}

/*------------------------------------------------------------*/
/*--- The -v report                                        ---*/
/*------------------------------------------------------------*/

#define REPORT_TOP 5

static ULong ll_misses(const cb_obj *o) { return o->written[OE_DLmr] + o->written[OE_DLmw]; }
static ULong sploss1(const cb_obj *o) { return o->written[OE_SpLoss1]; }

static void report_top(const HChar *title, ULong (*key)(const cb_obj *), ULong all)
{
   const cb_obj *best[REPORT_TOP];
   Int n = 0, i;
   const cb_obj *o;
   for (o = cb_obj_list; o; o = o->next_all) {
      if (key(o) == 0) continue;
      if (n < REPORT_TOP) best[n++] = o;
      else if (key(o) > key(best[REPORT_TOP - 1])) best[REPORT_TOP - 1] = o;
      else continue;
      for (i = n - 1; i > 0 && key(best[i - 1]) < key(best[i]); i--) {
         const cb_obj *t = best[i]; best[i] = best[i - 1]; best[i - 1] = t;
      }
   }
   VG_(umsg)("%s\n", title);
   if (n == 0) VG_(umsg)("   (none)\n");
   for (i = 0; i < n; i++) {
      const cb_obj *ob = best[i];
      ULong k = key(ob);
      HChar extent[64] = "";
      if (ob->kind != OK_BUCKET)
         VG_(sprintf)(extent, " (%llu block%s, %'llu bytes)", ob->blocks,
                      ob->blocks == 1 ? "" : "s", ob->bytes);
      VG_(umsg)("   %'14llu %3llu.%llu%%  %s %s%s\n",
                k, all ? k * 100 / all : 0, all ? (k * 1000 / all) % 10 : 0,
                obj_ob(ob), ob->name, extent);
   }
}

static void report(void)
{
   ULong total[OE_COUNT] = { 0 };
   const cb_obj *o;
   Int e;
   for (o = cb_obj_list; o; o = o->next_all)
      for (e = 0; e < OE_COUNT; e++) total[e] += o->written[e];
   VG_(umsg)("Data objects: %u, call chains %llu, cells %llu, cell-chain pairs %llu; last profile written %s\n",
             cb_obj_count_objs, cb_obj_n_chains, cb_obj_n_cells, cb_obj_n_pairs,
             objects_file ? objects_file : "(none)");
   VG_(umsg)("Object lookups missing the cache: %llu (stack %llu, heap %llu, static %llu, unknown %llu)\n",
             cb_obj_slow_lookups, cb_obj_slow_found[0], cb_obj_slow_found[1],
             cb_obj_slow_found[2], cb_obj_slow_found[3]);
   if (cb_clo.cacheuse)
      report_top("Top objects by SpLoss1 (bytes of L1 lines loaded and never used):",
                 sploss1, total[OE_SpLoss1]);
   report_top("Top objects by LL data misses (DLmr + DLmw):", ll_misses,
              total[OE_DLmr] + total[OE_DLmw]);
}

/*------------------------------------------------------------*/
/*--- Start and end                                        ---*/
/*------------------------------------------------------------*/

/* The objects profile must be creatable before the client runs. With
 * --separate-threads=yes the files are per thread (<out>-NN.objects):
 * the file made to check this is not one of them. */
void cb_obj_dump_init(void)
{
   if (!cb_clo.objects) return;
   const HChar *fmt = cb_clo.out_format ? cb_clo.out_format : "callgrind.out.%p";
   HChar *base = VG_(expand_file_name)("--callgrind-out-file", fmt);
   HChar *name = CB_MALLOC("cb.obj.file", VG_(strlen)(base) + 16);
   SysRes res;
   VG_(sprintf)(name, "%s.objects", base);
   res = VG_(open)(name, VKI_O_WRONLY | VKI_O_CREAT | VKI_O_TRUNC,
                   VKI_S_IRUSR | VKI_S_IWUSR);
   if (sr_isError(res)) {
      VG_(fmsg)("callgrind-bd: cannot create objects profile file '%s': %s\n",
                name, cb_open_error_text(sr_Err(res)));
      VG_(exit)(1);
   }
   VG_(close)(sr_Res(res));
   if (cb_clo.separate_threads) VG_(unlink)(name);
   CB_FREE(name);
   arcs = VG_(newXA)(VG_(malloc), "cb.obj.arcs", VG_(free), sizeof(arc_node *));
}

/* A dump of the profile file `name` (dump.c): the same part's objects
 * profile, <name>.objects; then the part's costs start again. */
void cb_obj_dump(const HChar *name, thread_info *only, const HChar *trigger,
                 Int part, Bool appending)
{
   if (!cb_clo.objects) return;
   if (objects_file) CB_FREE(objects_file);
   objects_file = CB_MALLOC("cb.obj.file", VG_(strlen)(name) + 16);
   VG_(sprintf)(objects_file, "%s.objects", name);
   part_thread = cb_obj_thread_roots ? only : NULL;
   cb_obj_find_held(part_thread);
   write_objects_file(trigger, part, appending);
   free_arcs();
   cb_obj_start_part(part_thread);
   part_thread = NULL;
}

void cb_obj_fini(void)
{
   if (!cb_clo.objects) return;
   if (VG_(clo_verbosity) > 1 || cb_clo.verbose > 0) report();
}
