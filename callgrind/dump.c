/* callgrind-bd: writing profiles in the Callgrind format.
 *
 * A dump writes every cost centre that executed since the previous dump,
 * sorted by object, file, function and address, then resets them. Frames
 * still on a call stack contribute their partial inclusive cost to their
 * arcs, exactly as if they had returned at the dump. Files, functions and
 * objects are written as "(id) name" the first time and "(id)" after that
 * (--compress-strings); positions close to the previous one as +N, -N or *
 * (--compress-pos).
 *
 * Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
 */
#include "global.h"
#include "pub_tool_xarray.h"
#include "objects.h"

Int cb_out_counter;                   /* number of the next part */
static HChar *out_base;               /* file name without part/thread */
static ULong bbs_done_at_last_dump;
static ULong *dump_total;             /* sum of written self costs */
ULong *cb_written_total;              /* the same over all dumps so far */
static void add_backdated_totals(ULong *summary);
static Bool backdated_only(const BBCC *bbcc);
static void mask_immediate(ULong *c);
static Bool written_when_idle(Int e);

/*------------------------------------------------------------*/
/*--- Buffered output with error reporting                 ---*/
/*------------------------------------------------------------*/

static cb_outfile out;           /* the profile file being written */
static const HChar *out_name;

static void out_flush(void) { cb_out_flush(&out); }
static void out_str(const HChar *s) { cb_out_str(&out, s); }


/*------------------------------------------------------------*/
/*--- Name compression                                     ---*/
/*------------------------------------------------------------*/

/* One id space per kind: objects; files (fl, fi, fe, cfi); functions. */
typedef struct name_entry { const HChar *name; UInt id; struct name_entry *next; } name_entry;
typedef struct { name_entry *table[1021]; UInt next_id; } name_space;
static name_space ns_obj, ns_file, ns_fn;

static void ns_reset(name_space *ns)
{
   UInt i;
   for (i = 0; i < 1021; i++) {
      name_entry *e = ns->table[i];
      while (e) { name_entry *n = e->next; CB_FREE((void *)e->name); CB_FREE(e); e = n; }
      ns->table[i] = NULL;
   }
   ns->next_id = 1;
}

static UInt name_hash(const HChar *s)
{
   UInt h = 0;
   for (; *s; s++) h = h * 33 + (UChar)*s;
   return h % 1021;
}

/* Write "<key>=(id) name" or "<key>=(id)". */
static void out_name_line(const HChar *key, name_space *ns, const HChar *name)
{
   UInt h;
   name_entry *e;
   if (!cb_clo.compress_strings) { cb_out_printf(&out, "%s=", key); out_str(name); out_str("\n"); return; }
   h = name_hash(name);
   for (e = ns->table[h]; e; e = e->next)
      if (VG_(strcmp)(e->name, name) == 0) { cb_out_printf(&out, "%s=(%u)\n", key, e->id); return; }
   e = CB_MALLOC("cb.dump.name", sizeof *e);
   e->name = VG_(strdup)("cb.dump.name", name);
   e->id = ns->next_id++;
   e->next = ns->table[h];
   ns->table[h] = e;
   cb_out_printf(&out, "%s=(%u) ", key, e->id);
   out_str(name);
   out_str("\n");
}

/* ... of a cost centre's function */
static void context_name(const BBCC *bbcc, HChar *buf, SizeT size)
{
   cb_context_name(bbcc->cxt, bbcc->rec_index, buf, size);
}

/*------------------------------------------------------------*/
/*--- Positions and cost lines                             ---*/
/*------------------------------------------------------------*/

typedef struct { Addr addr; UInt line; file_node *file; } src_pos;

static src_pos   last_pos;        /* for relative positions */
static obj_node  *cur_obj;
static file_node *cur_fl;     /* file of the current function */
static file_node *cur_fi;     /* file of the last position line */
static const BBCC *cur_fn_bbcc;

static void out_subpos(Addr now, Addr before, Bool hex)
{
   Long diff = (Long)now - (Long)before;
   if (cb_clo.compress_pos && before > 0 && diff > -100 && diff < 100) {
      if (diff > 0) out_str("+");
      if (diff == 0) out_str("*");
      else cb_out_i64(&out, diff);
   } else if (hex) {
      cb_out_printf(&out, "%#lx", (UWord)now);
   } else {
      cb_out_u64(&out, (ULong)now);
   }
}

static void out_pos(const src_pos *p, Bool absolute)
{
   src_pos before = absolute ? (src_pos){0, 0, NULL} : last_pos;
   if (cb_clo.dump_instr) {
      out_subpos(p->addr, before.addr, True);
      if (cb_clo.dump_line) out_str(" ");
   }
   if (cb_clo.dump_line) out_subpos(p->line, before.line, False);
   last_pos = *p;
}

/* Cost values; trailing zeros are dropped, in summary:/totals: too, as
 * the reference writes them (callgrind_annotate shows an event left out
 * there as '.', one written as 0 as '0'). */
static void out_costs(const ULong *c)
{
   Int n = cb_n_events, i;
   while (n > 1 && c[n - 1] == 0) n--;
   for (i = 0; i < n; i++) {
      out_str(" ");
      cb_out_u64(&out, c[i]);
   }
   out_str("\n");
}


/* Switch fi=/fe= to the file of position p. */
static void out_file_switch(const src_pos *p)
{
   if (!p->file || p->file == cur_fi) return;
   out_name_line(p->file == cur_fl ? "fe" : "fi", &ns_file, p->file->name);
   cur_fi = p->file;
}

static void out_cost_line(const src_pos *p, const ULong *c, Bool absolute)
{
   out_file_switch(p);
   out_pos(p, absolute);
   out_costs(c);
   cb_add_cost(dump_total, c);
}

static void instr_pos(const BBCC *bbcc, UInt i, src_pos *p)
{
   const BB *bb = bbcc->bb;
   const instr_info *ii = &bb->instr[i];
   p->addr = bb->addr + ii->offset - bb->obj->offset;
   p->line = ii->line;
   p->file = ii->file ? ii->file : bb->fn->file;
}

/* Where a block's final exit is written: at its last instruction; for
 * the block of a faked call (no instructions; its address is the return
 * address - 1, inside the call instruction) at the call's file and line
 * from the debug info, as the reference writes it. */
static void exit_pos(const BBCC *bbcc, src_pos *p)
{
   const BB *bb = bbcc->bb;
   if (bb->instr_count > 0) {
      instr_pos(bbcc, bb->instr_count - 1, p);
      return;
   }
   p->addr = bb->addr - bb->obj->offset;
   cb_debug_pos(bb->addr, bb->fn->file, bb->obj, &p->line, &p->file);
}

static Bool same_pos(const src_pos *a, const src_pos *b)
{
   return (!cb_clo.dump_instr || a->addr == b->addr)
       && (!cb_clo.dump_line || a->line == b->line)
       && a->file == b->file;
}

/*------------------------------------------------------------*/
/*--- Writing one cost centre                              ---*/
/*------------------------------------------------------------*/

static Bool backdated_only(const BBCC *bbcc);

/* Position of a jump target: the first instruction of its block. */
static void jump_target_pos(const JCC *j, src_pos *p)
{
   const BB *tbb = j->to->bb;
   p->addr = tbb->addr - tbb->obj->offset;
   p->line = tbb->instr_count > 0 ? tbb->instr[0].line : tbb->line;
   p->file = tbb->instr_count > 0 && tbb->instr[0].file ? tbb->instr[0].file
                                                          : j->to->cxt->fn[0]->file;
}

/* A call arc is written when it has an inclusive cost; a jump arc
 * (--collect-jumps) when it was followed, its block is written for its
 * executions, and its target has a position to show (as the reference:
 * without --dump-instr, a target without line is left out). */
static Bool jcc_worth_writing(const JCC *j)
{
   src_pos t;
   if (j->kind == jk_Call) return !cb_is_zero_cost(j->cost);
   if (j->call_counter == 0 || backdated_only(j->from)) return False;
   jump_target_pos(j, &t);
   return cb_clo.dump_instr || t.line != 0;
}

/* jump=<count> <target> or jcnd=<followed>/<executed> <target>, then the
 * position of the jump; jfi=/jfn= when the target is in another file or
 * context. */
static void out_jump(const JCC *j, const src_pos *site, ULong executed)
{
   src_pos target, keep = last_pos;
   HChar name[4096];
   jump_target_pos(j, &target);
   if (target.file != cur_fi) out_name_line("jfi", &ns_file, target.file->name);
   if (j->from->cxt != j->to->cxt) {
      context_name(j->to, name, sizeof name);
      out_name_line("jfn", &ns_fn, name);
   }
   if (j->kind == jk_CondJump) cb_out_printf(&out, "jcnd=%llu/%llu ", j->call_counter, executed);
   else cb_out_printf(&out, "jump=%llu ", j->call_counter);
   out_pos(&target, True);
   last_pos = keep;
   out_str("\n");
   out_pos(site, True);
   out_str("\n");
}

static void out_jcc(const JCC *j, const src_pos *site)
{
   const BBCC *to = j->to;
   const BB *tbb = to->bb;
   file_node *tfile = to->cxt->fn[0]->file;
   HChar name[4096];

   if (tfile->obj != cur_obj) out_name_line("cob", &ns_obj, tfile->obj->name);
   if (tfile != cur_fi) out_name_line("cfi", &ns_file, tfile->name);
   context_name(to, name, sizeof name);
   out_name_line("cfn", &ns_fn, name);
   cb_out_printf(&out, "calls=%llu ", j->call_counter);
   {
      src_pos target = { tbb->addr - tbb->obj->offset, tbb->line, tfile };
      src_pos keep = last_pos;
      out_pos(&target, True);
      last_pos = keep;
   }
   out_str("\n");
   out_pos(site, True);
   out_costs(j->cost);
}

/* The arcs leaving at one exit; executed: how often the block reached it. */
static void out_jccs(const jmp_data *jd, const src_pos *site, ULong executed)
{
   const JCC *j;
   for (j = jd->jcc_list; j; j = j->next_from) {
      if (!jcc_worth_writing(j)) continue;
      if (j->kind == jk_Call) out_jcc(j, site);
      else out_jump(j, site, executed);
   }
}

static Bool has_jccs(const jmp_data *jd)
{
   const JCC *j;
   for (j = jd->jcc_list; j; j = j->next_from)
      if (jcc_worth_writing(j)) return True;
   return False;
}

static void start_function(const BBCC *bbcc)
{
   const fn_node *fn = bbcc->cxt->fn[0];
   HChar name[4096];
   if (fn->file->obj != cur_obj) {
      cur_obj = fn->file->obj;
      out_name_line("ob", &ns_obj, cur_obj->name);
   }
   if (fn->file != cur_fl || fn->file != cur_fi) {
      cur_fl = fn->file;
      cur_fi = fn->file;
      out_name_line("fl", &ns_file, cur_fl->name);
   }
   context_name(bbcc, name, sizeof name);
   out_str("\n");
   out_name_line("fn", &ns_fn, name);
   last_pos = (src_pos){0, 0, NULL};
   cur_fn_bbcc = bbcc;
}

static Bool same_function(const BBCC *a, const BBCC *b)
{
   return b && a->cxt == b->cxt && a->rec_index == b->rec_index;
}

/* Self cost of instruction i into c: simulated events from the cost array,
 * and without cache simulation Ir from the execution counts. */
static void instr_cost(const BBCC *bbcc, UInt i, ULong ecount, ULong *c)
{
   if (bbcc->cost) cb_copy_cost(c, bbcc->cost + (SizeT)i * cb_n_events);
   else cb_zero_cost(c);
   if (!cb_clo.simulate_cache) c[0] = ecount;
   if (backdated_only(bbcc)) mask_immediate(c);
}

static void write_bbcc(BBCC *bbcc)
{
   const BB *bb = bbcc->bb;
   ULong ecount = bbcc->ecounter_sum;
   ULong pending[cb_n_events], c[cb_n_events];
   src_pos pending_pos = {0, 0, NULL}, p;
   Bool have_pending = False;
   UInt i, jmp = 0;

   if (!same_function(bbcc, cur_fn_bbcc)) start_function(bbcc);
   cb_zero_cost(pending);

   for (i = 0; i < bb->instr_count; i++) {
      instr_pos(bbcc, i, &p);
      instr_cost(bbcc, i, ecount, c);
      if (have_pending && !same_pos(&p, &pending_pos)) {
         if (!cb_is_zero_cost(pending)) out_cost_line(&pending_pos, pending, False);
         cb_zero_cost(pending);
      }
      pending_pos = p;
      have_pending = True;
      cb_add_cost(pending, c);

      /* arcs leaving at a conditional exit of this instruction */
      while (jmp < bb->cjmp_count && bb->jmp[jmp].instr == i) {
         if (has_jccs(&bbcc->jmp[jmp])) {
            if (!cb_is_zero_cost(pending)) out_cost_line(&pending_pos, pending, False);
            cb_zero_cost(pending);
            out_file_switch(&p);
            out_jccs(&bbcc->jmp[jmp], &p, ecount);
         }
         ecount -= bbcc->jmp[jmp].ecounter;
         jmp++;
      }
   }

   /* the final exit: skipped callees' costs, then arcs */
   if ((bbcc->skipped && !cb_is_zero_cost(bbcc->skipped)) || has_jccs(&bbcc->jmp[jmp])) {
      if (have_pending && !cb_is_zero_cost(pending)) out_cost_line(&pending_pos, pending, False);
      cb_zero_cost(pending);
      have_pending = False;
      exit_pos(bbcc, &p);
      if (bbcc->skipped && !cb_is_zero_cost(bbcc->skipped)) {
         out_cost_line(&p, bbcc->skipped, True);
         cb_zero_cost(bbcc->skipped);
      } else {
         out_file_switch(&p);
      }
      out_jccs(&bbcc->jmp[jmp], &p, ecount);
   }
   if (have_pending && !cb_is_zero_cost(pending)) out_cost_line(&pending_pos, pending, False);
}

/* After writing: the cost centre starts again from zero. */
static void reset_bbcc_as(BBCC *bbcc, Bool written_backdated_only)
{
   UInt j;
   bbcc->ecounter_sum = 0;
   bbcc->ret_counter = 0;
   for (j = 0; j <= bbcc->bb->cjmp_count; j++) {
      JCC *jcc;
      bbcc->jmp[j].ecounter = 0;
      for (jcc = bbcc->jmp[j].jcc_list; jcc; jcc = jcc->next_from) {
         /* as the reference, a call count is restarted only when its arc
          * was written (an arc entered just before a dump keeps its call
          * for the next part); jumps of a block not written for its
          * executions wait */
         if (jcc->kind == jk_Call ? !cb_is_zero_cost(jcc->cost) : !written_backdated_only)
            jcc->call_counter = 0;
         cb_zero_cost(jcc->cost);
      }
   }
   if (bbcc->cost && written_backdated_only) {
      SizeT i, n = bbcc->bb->instr_count;
      Int e;
      for (i = 0; i < n; i++)
         for (e = 0; e < EV_COUNT; e++)
            if (cb_ev_pos[e] >= 0 && written_when_idle(e))
               bbcc->cost[i * cb_n_events + cb_ev_pos[e]] = 0;
   } else if (bbcc->cost) {
      VG_(memset)(bbcc->cost, 0, (SizeT)bbcc->bb->instr_count * cb_n_events * sizeof(ULong));
   }
   if (bbcc->skipped) cb_zero_cost(bbcc->skipped);
}

static void reset_bbcc(BBCC *bbcc) { reset_bbcc_as(bbcc, False); }

/*------------------------------------------------------------*/
/*--- Choosing and ordering what to write                  ---*/
/*------------------------------------------------------------*/

static XArray *dump_list;

/* A cost centre none of whose blocks completed since the last dump is
 * written only for its back-dated events; its immediate events wait, as
 * in the reference, until a block completes. */
static Bool backdated_only(const BBCC *bbcc)
{
   return bbcc->ecounter_sum == 0 && bbcc->ret_counter == 0;
}

static Bool nonzero_costs(const BBCC *bbcc)
{
   UInt i;
   Int e;
   for (i = 0; i < bbcc->bb->instr_count; i++)
      for (e = 0; e < EV_COUNT; e++)
         if (cb_ev_pos[e] >= 0 && written_when_idle(e)
             && bbcc->cost[(SizeT)i * cb_n_events + cb_ev_pos[e]])
            return True;
   return False;
}

/* The oracle's load counts (L1ld, LLld) are ours only: they are written
 * with the back-dated events, so that counts kept across a zero are not
 * held back forever by a cost centre that never runs again. */
static Bool written_when_idle(Int e)
{
   return cb_event_backdated(e) || e == EV_L1ld || e == EV_LLld || e == EV_L2ld;
}

static void mask_immediate(ULong *c)
{
   Int e;
   for (e = 0; e < EV_COUNT; e++)
      if (cb_ev_pos[e] >= 0 && !written_when_idle(e)) c[cb_ev_pos[e]] = 0;
}

static Bool has_arc_costs(const BBCC *bbcc)
{
   UInt j;
   const JCC *jcc;
   for (j = 0; j <= bbcc->bb->cjmp_count; j++)
      for (jcc = bbcc->jmp[j].jcc_list; jcc; jcc = jcc->next_from)
         if (!cb_is_zero_cost(jcc->cost)) return True;
   return False;
}

/* A cost centre is written when one of its blocks completed since the
 * last dump, or it has costs: back-dated metrics arrive long after the
 * code ran (the reference writes only executed cost centres and so loses
 * metrics of lines evicted after their loader's last run). */
static void add_if_executed(BBCC *bbcc)
{
   if (bbcc->ecounter_sum > 0 || bbcc->ret_counter > 0
       || (bbcc->cost && nonzero_costs(bbcc))
       || (bbcc->skipped && !cb_is_zero_cost(bbcc->skipped))
       || has_arc_costs(bbcc))
      VG_(addToXA)(dump_list, &bbcc);
}

/* Frames still running: their arcs get the partial inclusive cost now,
 * as if they returned at the dump (their callers are then written since
 * they have arc costs). */
static void add_active_frames(thread_info *t)
{
   Int i;
   for (i = 0; i < t->calls.sp; i++) {
      call_entry *e = &t->calls.entry[i];
      const ULong *now = cb_frame_state(t, i)->cost;   /* a handler's or the flow it interrupted */
      if (!e->jcc) continue;
      cb_add_diff_cost(e->jcc->cost, e->enter_cost, now);
      cb_copy_cost(e->enter_cost, now);
   }
}

static Int cmp_bbcc(const void *pa, const void *pb)
{
   const BBCC *a = *(BBCC *const *)pa, *b = *(BBCC *const *)pb;
   const fn_node *fa = a->cxt->fn[0], *fb = b->cxt->fn[0];
   UInt i;
#define CMP(x, y) do { if ((x) != (y)) return (x) < (y) ? -1 : 1; } while (0)
   CMP(fa->file->obj->number, fb->file->obj->number);
   CMP(fa->file->number, fb->file->number);
   CMP(fa->number, fb->number);
   CMP(a->rec_index, b->rec_index);
   CMP(a->cxt->size, b->cxt->size);
   for (i = 1; i < a->cxt->size; i++) CMP(a->cxt->fn[i]->number, b->cxt->fn[i]->number);
   CMP(a->bb->addr, b->bb->addr);
   CMP(a->bb->instr_count, b->bb->instr_count);
#undef CMP
   return 0;
}

/*------------------------------------------------------------*/
/*--- Files                                                ---*/
/*------------------------------------------------------------*/

/* Expand %p and %q{VAR} of --callgrind-out-file. */
static HChar *expand_out_name(const HChar *fmt)
{
   return VG_(expand_file_name)("--callgrind-out-file", fmt);
}

/* The pid out_base was expanded for: a forked child gets its own file
 * (%p), as with the reference, instead of overwriting its parent's. */
static Int out_pid;

static void expand_out_base(void)
{
   const HChar *fmt = cb_clo.out_format ? cb_clo.out_format : "callgrind.out.%p";
   out_base = expand_out_name(fmt);
   out_pid = VG_(getpid)();
}

static void out_base_for_this_process(void)
{
   if (VG_(getpid)() != out_pid) expand_out_base();
}

void cb_init_dumps(void)
{
   expand_out_base();
   cb_out_counter = 1;
   dump_total = cb_new_cost(CB_MEM_OTHER);
   cb_written_total = cb_new_cost(CB_MEM_OTHER);
}

/* Check before the client runs that the profile can be created. */
Bool cb_check_out_file(void)
{
   SysRes res = VG_(open)(out_base, VKI_O_WRONLY | VKI_O_CREAT | VKI_O_TRUNC,
                          VKI_S_IRUSR | VKI_S_IWUSR);
   if (sr_isError(res)) {
      VG_(fmsg)("callgrind-bd: cannot create profile file '%s': %s\n",
                out_base, cb_open_error_text(sr_Err(res)));
      return False;
   }
   VG_(close)(sr_Res(res));
   return True;
}

/* The file written beside the final profile at the end of the run
 * (<profile>.paths, .sharing, .sharing.txt, .bandwidth) must be creatable
 * before the client runs, as the profile must: else the analysis would be
 * lost after the whole run (a name too long, a directory in its way). A
 * file that is not there is made and removed again (the end of the run
 * writes it); one that is (a link, an old run's) is opened, not changed,
 * until the end truncates it. per_thread:
 * with --separate-threads=yes it is beside each thread's file (thread 1's
 * is checked). */
static void file_name_for(HChar *buf, SizeT size, Int tid, Bool final);

static void check_companion(const HChar *suffix, const HChar *what, Bool per_thread)
{
   HChar name[VG_(strlen)(out_base) + VG_(strlen)(suffix) + 16];
   SysRes res;
   Bool made = False;
   if (per_thread)
      file_name_for(name, sizeof name, 1, True);
   else
      VG_(strcpy)(name, out_base);
   VG_(strcat)(name, suffix);
   res = VG_(open)(name, VKI_O_WRONLY, 0);
   if (sr_isError(res) && sr_Err(res) == VKI_ENOENT) {
      res = VG_(open)(name, VKI_O_WRONLY | VKI_O_CREAT | VKI_O_EXCL,
                      VKI_S_IRUSR | VKI_S_IWUSR);
      made = !sr_isError(res);
   }
   if (sr_isError(res)) {
      VG_(fmsg)("callgrind-bd: cannot create %s '%s': %s\n", what, name,
                cb_open_error_text(sr_Err(res)));
      VG_(exit)(1);
   }
   VG_(close)(sr_Res(res));
   if (made) VG_(unlink)(name);
}

/* Before the client runs: every file the options write at the end. (The
 * objects profile: cb_obj_dump_init. Parts' files are made as they come.) */
void cb_check_companion_files(void)
{
   if (cb_clo.paths) check_companion(".paths", "paths file", True);
   if (cb_clo.sharing) {
      check_companion(".sharing.txt", "sharing report", False);
      check_companion(".sharing", "sharing profile", False);
   }
   if (cb_clo.bandwidth) check_companion(".bandwidth", "bandwidth file", False);
}

/* Before an execve: the file made empty at start (cb_check_out_file)
 * would stay empty if the exec succeeds, since the final dump never comes;
 * the profile is in the part just written. A file with content (e.g. of
 * --combine-dumps) is kept. */
void cb_remove_empty_out_file(void)
{
   struct vg_stat st;
   out_base_for_this_process();
   if (!sr_isError(VG_(stat)(out_base, &st)) && st.size == 0)
      VG_(unlink)(out_base);
}

const HChar *cb_out_base_name(void)
{
   out_base_for_this_process();
   return out_base;
}

/* out_base and, for a part of its own (not --combine-dumps; part 0: the
 * final file), its number; the length written. */
static SizeT part_base_name(HChar *buf, SizeT size, Int part)
{
   SizeT n = VG_(snprintf)(buf, size, "%s", out_base);
   if (!cb_clo.combine_dumps && part > 0)
      n += VG_(snprintf)(buf + n, size - n, ".%d", part);
   return n;
}

static void file_name_for(HChar *buf, SizeT size, Int tid, Bool final)
{
   SizeT n = part_base_name(buf, size, final ? 0 : cb_out_counter);
   if (cb_clo.separate_threads)
      VG_(snprintf)(buf + n, size - n, "-%02d", tid);
}

/* The name of the part just written, without a thread's suffix: the base
 * of whole-run files written with it (the false sharing reports before an
 * execve, which the new program, keeping the pid, would otherwise
 * overwrite at its exit with --trace-children=yes). With --combine-dumps
 * the parts have no name of their own: the plain name. */
const HChar *cb_last_part_base_name(void)
{
   static HChar *name;
   SizeT size;
   out_base_for_this_process();
   size = VG_(strlen)(out_base) + 16;
   if (name) VG_(free)(name);
   name = CB_MALLOC("cb.partname", size);
   part_base_name(name, size, cb_out_counter - 1);
   return name;
}

static void write_header(Int tid, const HChar *trigger, Bool appending, const ULong *summary)
{
   Int i;
   if (!appending) {
      out_str("# callgrind format\nversion: 1\ncreator: callgrind-bd-" CB_VERSION "\n");
      cb_out_printf(&out, "pid: %d\n", VG_(getpid)());
      cb_write_cmd_line(&out);
   }
   cb_out_printf(&out, "\npart: %d\n", cb_out_counter);
   if (cb_clo.separate_threads) cb_out_printf(&out, "thread: %d\n", tid);
   if (!appending) {
      out_str("\n");
      cb_sim_write_desc(&out);
      cb_mpi_rank_write_desc(&out);
   }
   cb_out_printf(&out, "\ndesc: Timerange: Basic block %llu - %llu\n",
              bbs_done_at_last_dump, cb_stat.bb_executions);
   cb_out_printf(&out, "desc: Trigger: %s\n", trigger ? trigger : "Program termination");
   cb_lat_write_desc(&out);
   cb_out_printf(&out, "\npositions:%s%s\n", cb_clo.dump_instr ? " instr" : "",
              cb_clo.dump_line ? " line" : "");
   cb_write_event_names(NULL, 0, out_str);
   out_str("events:");
   for (i = 0; i < cb_n_events; i++) { out_str(" "); out_str(cb_ev_name[cb_ev_at[i]]); }
   out_str("\nsummary:");
   out_costs(summary);
   out_str("\n\n");
}

static Bool open_profile(const HChar *name, Bool *appending)
{
   SysRes res;
   *appending = False;
   if (cb_clo.combine_dumps && cb_out_counter > 1) {
      res = VG_(open)(name, VKI_O_WRONLY | VKI_O_APPEND, 0);
      *appending = !sr_isError(res);
   } else {
      res = VG_(open)(name, VKI_O_WRONLY | VKI_O_CREAT | VKI_O_TRUNC,
                      VKI_S_IRUSR | VKI_S_IWUSR);
   }
   if (sr_isError(res)) {
      VG_(message)(Vg_UserMsg, "callgrind-bd: cannot create profile '%s': %s\n", name,
                   cb_open_error_text(sr_Err(res)));
      return False;
   }
   cb_out_start(&out, sr_Res(res), name, "profile");
   return True;
}

/* Summary of one thread (or all): running counters since the last dump;
 * back-dated events are known only when written, so their summary is
 * their total (DESIGN.md: summary and totals agree for them). */
static void summary_for(thread_info *only, ULong *sum)
{
   thread_info **ts = cb_get_threads();
   Int t;
   cb_zero_cost(sum);
   for (t = 1; t < VG_N_THREADS; t++) {
      if (!ts[t] || (only && ts[t] != only)) continue;
      cb_add_diff_cost(sum, ts[t]->lastdump_cost, ts[t]->states[0]->cost);
      /* unlike the reference, handlers count too: summary = totals */
      cb_add_cost(sum, ts[t]->sighandler_cost);
   }
}

static void dump_one(thread_info *only, const HChar *trigger, Bool final)
{
   HChar name[VG_(strlen)(out_base) + 32];
   Bool appending;
   ULong summary[cb_n_events];
   Word i, n;
   Int tid = only ? (Int)only->tid : 1;

   dump_list = VG_(newXA)(VG_(malloc), "cb.dump.list", VG_(free), sizeof(BBCC *));
   if (only) {
      add_active_frames(only);
      cb_forall_bbccs(&only->bbccs, add_if_executed);
   } else {
      cb_forall_threads(add_active_frames);
      cb_forall_bbccs(&cb_get_threads()[1]->bbccs, add_if_executed);
   }
   VG_(setCmpFnXA)(dump_list, cmp_bbcc);
   VG_(sortXA)(dump_list);

   file_name_for(name, sizeof name, tid, final);
   out_name = name;
   if (!open_profile(name, &appending)) { VG_(deleteXA)(dump_list); return; }
   if (!appending) { ns_reset(&ns_obj); ns_reset(&ns_file); ns_reset(&ns_fn); }

   /* totals first: back-dated summaries equal them */
   cb_zero_cost(dump_total);
   summary_for(only, summary);
   add_backdated_totals(summary);
   write_header(tid, trigger, appending, summary);

   cur_obj = NULL; cur_fl = NULL; cur_fi = NULL; cur_fn_bbcc = NULL;
   n = VG_(sizeXA)(dump_list);
   for (i = 0; i < n; i++) write_bbcc(*(BBCC **)VG_(indexXA)(dump_list, i));
   /* --objects: the same part's object costs, while idle cost centres
    * can still be told (objects_parts.c) */
   cb_obj_dump(name, only, trigger, cb_out_counter, cb_clo.combine_dumps && cb_out_counter > 1);
   for (i = 0; i < n; i++) {
      BBCC *b = *(BBCC **)VG_(indexXA)(dump_list, i);
      reset_bbcc_as(b, backdated_only(b));
   }

   out_str("\ntotals:");
   out_costs(dump_total);
   cb_add_cost(cb_written_total, dump_total);
   cb_out_finish(&out);
   VG_(deleteXA)(dump_list);
   if (cb_clo.paths) {
      if (only) cb_paths_charge_thread(only);
      else cb_forall_threads(cb_paths_charge_thread);
      cb_paths_dump(name, cb_out_counter, cb_clo.separate_threads ? only : NULL, trigger,
                    appending);
   }
}

/* Back-dated events exist only as self costs written at eviction: their
 * summary is the sum of what this dump is about to write. One pass over
 * the cost centres for all such events (a pass each went over every cost
 * array of a large profile several times). */
static void add_backdated_totals(ULong *summary)
{
   Word i, n = VG_(sizeXA)(dump_list);
   Int e, pos[EV_COUNT], n_pos = 0, j;
   for (e = 0; e < EV_COUNT; e++)
      if (cb_ev_pos[e] >= 0 && cb_event_backdated(e)) pos[n_pos++] = cb_ev_pos[e];
   if (n_pos == 0) return;
   for (i = 0; i < n; i++) {
      const BBCC *b = *(BBCC **)VG_(indexXA)(dump_list, i);
      UInt k;
      if (b->skipped)
         for (j = 0; j < n_pos; j++) summary[pos[j]] += b->skipped[pos[j]];
      if (!b->cost) continue;
      for (k = 0; k < b->bb->instr_count; k++) {
         const ULong *c = b->cost + (SizeT)k * cb_n_events;
         for (j = 0; j < n_pos; j++) summary[pos[j]] += c[pos[j]];
      }
   }
}

/* The thread's own flow (not its signal handlers, whose faked calls last
 * since the handler started) restarts its back-dating tree where a
 * faked call would start. */
static void restart_main_tree(thread_info *t)
{
   Int end = t->states_sp > 0 ? t->states[1]->call_stack_bottom : t->calls.sp;
   cb_paths_new_root_at_dump(t, end);
   cb_bd_restart_tree(t->states[0], t->calls.entry, end);
}

static void remember_dump_point(thread_info *t)
{
   restart_main_tree(t);
   cb_copy_cost(t->lastdump_cost, t->states[0]->cost);
   cb_copy_cost(t->underflow_cost, t->states[0]->cost);
   cb_zero_cost(t->sighandler_cost);
}

static void dump_profile(const HChar *trigger, Bool current_thread_only, Bool final)
{
   out_base_for_this_process();
   cb_exec_state_save();
   cb_settle_sim_counts();
   if (!final) cb_bd_settle();
   if (cb_clo.separate_threads) {
      if (current_thread_only) {
         dump_one(cb_cur.thread, trigger, final);
         remember_dump_point(cb_cur.thread);
      } else {
         thread_info **ts = cb_get_threads();
         ThreadId orig = cb_cur.tid, t;
         for (t = 1; t < VG_N_THREADS; t++) {
            if (!ts[t]) continue;
            cb_switch_thread(t);
            dump_one(ts[t], trigger, final);
            remember_dump_point(ts[t]);
         }
         cb_switch_thread(orig);
      }
   } else {
      dump_one(NULL, trigger, final);
      cb_forall_threads(remember_dump_point);
   }
   /* as the reference, a dump counts as one block: the next part's
    * time range starts where this one ended, its end is one further */
   bbs_done_at_last_dump = cb_stat.bb_executions++;
   cb_out_counter++;
}

/* Zero every cost centre and arc (ZERO_STATS, --zero-before, the zero
 * monitor command). cb_sim_zero first delivers what the trees hold and
 * makes resident lines forget their owners: no back-dated metric of the
 * past is written after the zero. */
static Bool is_oracle_event(Int e)
{
   return e == EV_L1ld || e == EV_LLld || e == EV_L1ldB || e == EV_LLldB
       || e == EV_L2ld || e == EV_L2ldB;
}

/* Zero the events of c that a zero resets: in a cost centre idle since
 * the last dump only the back-dated ones and the oracle's line counts
 * (whose lines were just forgotten), else all. */
static void zero_events(ULong *c, Bool idle)
{
   Int e;
   for (e = 0; e < EV_COUNT; e++)
      if (cb_ev_pos[e] >= 0
          && (!idle || cb_event_backdated(e) || is_oracle_event(e)))
         c[cb_ev_pos[e]] = 0;
}

/* As the reference, a cost centre that did not complete a block since the
 * last dump keeps its immediate costs (the block running the request is
 * written later with them). Back-dated costs are zeroed everywhere, so
 * that no arc keeps a metric whose self cost was discarded. */
static void zero_bbcc(BBCC *bbcc)
{
   Bool idle = bbcc->ecounter_sum == 0 && bbcc->ret_counter == 0;
   UInt j, i;
   JCC *jcc;
   if (!idle) {
      bbcc->ecounter_sum = 0;
      bbcc->ret_counter = 0;
   }
   for (j = 0; j <= bbcc->bb->cjmp_count; j++) {
      if (!idle) bbcc->jmp[j].ecounter = 0;
      for (jcc = bbcc->jmp[j].jcc_list; jcc; jcc = jcc->next_from) {
         zero_events(jcc->cost, idle);
         if (!idle) jcc->call_counter = 0;
      }
   }
   if (bbcc->cost)
      for (i = 0; i < bbcc->bb->instr_count; i++)
         zero_events(bbcc->cost + (SizeT)i * cb_n_events, idle);
   if (bbcc->skipped) zero_events(bbcc->skipped, idle);
}

static void zero_thread(thread_info *t)
{
   Int i;
   cb_forall_bbccs(&t->bbccs, zero_bbcc);
   for (i = 0; i < t->calls.sp; i++) {
      call_entry *e = &t->calls.entry[i];
      if (!e->jcc) continue;
      /* as the reference: running calls start counting again; their
       * call was before the zero, so it is not counted later either */
      cb_copy_cost(e->enter_cost, cb_frame_state(t, i)->cost);
      e->jcc->call_counter = 0;
      e->counted = True;
   }
   cb_copy_cost(t->lastdump_cost, t->states[0]->cost);
   cb_copy_cost(t->underflow_cost, t->states[0]->cost);
   restart_main_tree(t);
   zero_events(t->sighandler_cost, False);
   cb_paths_zero(t);
}

void cb_zero_all_cost(Bool only_current_thread)
{
   Bool one_thread = only_current_thread && cb_clo.separate_threads;
   cb_exec_state_save();
   cb_settle_sim_counts();
   cb_sim_zero(one_thread ? cb_cur.thread : NULL);
   cb_obj_zero(one_thread ? cb_cur.thread : NULL);
   if (one_thread) zero_thread(cb_cur.thread);
   else cb_forall_threads(zero_thread);
}

/* Instrumentation switched: every call stack was emptied, so a later
 * return from an empty stack fakes a call lasting since now. */
void cb_mark_stacks_emptied(thread_info *t)
{
   cb_copy_cost(t->underflow_cost, t->states[0]->cost);
}

/* A part (client request, monitor command, --dump-every-bb, ...). */
void cb_dump_profile(const HChar *trigger, Bool current_thread_only)
{
   cb_sim_catch_up();
   if (cb_clo.bandwidth) cb_bw_sync();   /* the running units' events */
   dump_profile(trigger, current_thread_only, False);
   if (cb_clo.latency) cb_lat_dumped();
}

/* The last dump, under the plain file name: at the program's end
 * (trigger NULL, "Program termination"), or when the run is stopped. */
void cb_fini_dump(const HChar *trigger)
{
   dump_profile(trigger, False, True);
}
